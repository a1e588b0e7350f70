# perfx corpus: the pipeline form of learning-spark's src/python/WordCount.py
# (origin, licence and edits in ../SOURCES.md). Edits to fit pipeline(ctx, input_path):
#   1. the __main__ block is pipeline(ctx, input_path) (the program reads no input)
#   2. the master argument is gone; sc = SparkContext(master, "WordCount") -> sc = ctx
#   3. the loop printing result -> return result (a driver value: the dict countByValue returns)

import sys

from pyspark import SparkContext

def pipeline(ctx, input_path):
    sc = ctx
    lines = sc.parallelize(["pandas", "i like pandas"])
    result = lines.flatMap(lambda x: x.split(" ")).countByValue()
    return result
