# perfx corpus: the pipeline form of Data Algorithms (book)'s src/python/chap01/SparkSecondarySort.py
# (origin, licence and edits in ../SOURCES.md). Edits to fit pipeline(ctx, input_path):
#   1. the __main__ block is pipeline(ctx, input_path); the argv check is gone
#   2. the master argument is gone; sc = SparkContext(master, "SparkSecondarySort") -> sc = ctx; sys.argv[2] -> input_path
#   3. output = groups.mapValues(lambda x: sorted(x)).collect() and the loop printing it -> return groups.mapValues(lambda x: sorted(x))

from pyspark import SparkContext
import sys

def pipeline(ctx, input_path):
    sc = ctx

    lines = sc.textFile(input_path)

    pairs = lines.map(lambda x: (x.split(",")[0],(x.split(",")[1],x.split(",")[2])))
    groups = pairs.groupByKey()

    return groups.mapValues(lambda x: sorted(x))
