# perfx corpus: the pipeline form of learning-spark's src/python/PerKeyAvg.py
# (origin, licence and edits in ../SOURCES.md). Edits to fit pipeline(ctx, input_path):
#   1. the __main__ block is pipeline(ctx, input_path) (the program reads no input)
#   2. the master argument is gone; sc = SparkContext(master, "Sum") -> sc = ctx
#   3. print(avg) -> return avg (a driver value: the dict collectAsMap returns)

"""
>>> from pyspark.context import SparkContext
>>> sc = SparkContext('local', 'test')
>>> input = [("coffee", 1), ("pandas", 2), ("coffee", 3), ("very", 4)]
>>> b = sc.parallelize(input)
>>> perKeyAvg(b)

"""

import sys

from pyspark import SparkContext


def perKeyAvg(nums):
    """Compute the avg"""
    sumCount = nums.combineByKey((lambda x: (x, 1)),
                                 (lambda x, y: (x[0] + y, x[1] + 1)),
                                 (lambda x, y: (x[0] + y[0], x[1] + y[1])))
    return sumCount.collectAsMap()

def pipeline(ctx, input_path):
    sc = ctx
    nums = sc.parallelize(
        [("coffee", 1), ("pandas", 2), ("coffee", 3), ("very", 4)])
    avg = perKeyAvg(nums)
    return avg
