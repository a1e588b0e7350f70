# perfx corpus: the pipeline form of learning-spark's src/python/BasicKeyValueMapFilter.py
# (origin, licence and edits in ../SOURCES.md). Edits to fit pipeline(ctx, input_path):
#   1. the __main__ block is pipeline(ctx, input_path) (the program reads no input)
#   2. the master argument is gone; sc = SparkContext(master, "BasicFilterMap") -> sc = ctx
#   3. output = sorted(basicKeyValueMapFilter(input).collect()) and the loop printing it -> return basicKeyValueMapFilter(input)

"""
>>> from pyspark.context import SparkContext
>>> sc = SparkContext('local', 'test')
>>> input = ["coffee", "i really like coffee", "coffee > magic"]
>>> b = sc.parallelize(input)
>>> sorted(basicKeyValueMapFilter(b).collect())
[4, 9]
"""

import sys

from pyspark import SparkContext


def basicKeyValueMapFilter(input):
    """Construct a key/value RDD and then filter on the value"""
    return input.map(lambda x: (x.split(" ")[0], x)).filter(
        lambda x: len(x[1]) < 20)

def pipeline(ctx, input_path):
    sc = ctx
    input = sc.parallelize(
        ["coffee", "i really like coffee", "coffee > magic", "panda < coffee"])
    return basicKeyValueMapFilter(input)
