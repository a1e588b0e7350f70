# perfx corpus: the pipeline form of pyspark-tutorial's tutorial/wordcount/word_count_ver2.py
# (origin, licence and edits in ../SOURCES.md). Edits to fit pipeline(ctx, input_path):
#   1. the __main__ block is pipeline(ctx, input_path)
#   2. SparkSession set-up removed; sys.argv[1] -> input_path; sc = spark.sparkContext -> sc = ctx
#   3. print(frequenciesRDD.collect()) and spark.stop() -> return frequenciesRDD

from __future__ import print_function

import sys

from pyspark.sql import SparkSession
#-----------------------------------


def pipeline(ctx, input_path):

    # inputPath = "file:///Users/mparsian/spark-2.2.1/zbin/sample.txt"
    #
    #   sys.argv[0] is the name of the script.
    #   sys.argv[1] is the first parameter
    inputPath = input_path # input file
    print("inputPath: {}".format(inputPath))


    # create SparkContext as sc
    sc = ctx

    # create RDD from a text file
    textfileRDD = sc.textFile(inputPath)
    print(textfileRDD.collect())

    wordsRDD = textfileRDD.flatMap(lambda line: line.split(" "))
    print(wordsRDD.collect())

    pairsRDD =  wordsRDD.map(lambda word: (word, 1))
    print(pairsRDD.collect())

    frequenciesRDD = pairsRDD.reduceByKey(lambda a, b: a + b)
    return frequenciesRDD
