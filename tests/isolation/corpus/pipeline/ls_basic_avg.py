# perfx corpus: the pipeline form of learning-spark's src/python/BasicAvg.py
# (origin, licence and edits in ../SOURCES.md). Edits to fit pipeline(ctx, input_path):
#   1. the __main__ block is pipeline(ctx, input_path) (the program reads no input)
#   2. the master argument is gone; sc = SparkContext(master, "Sum") -> sc = ctx
#   3. print(avg) -> return avg (a driver value)

"""
>>> from pyspark.context import SparkContext
>>> sc = SparkContext('local', 'test')
>>> b = sc.parallelize([1, 2, 3, 4])
>>> basicAvg(b)
2.5
"""

import sys

from pyspark import SparkContext


def basicAvg(nums):
    """Compute the avg"""
    sumCount = nums.map(lambda x: (x, 1)).fold(
        (0, 0), (lambda x, y: (x[0] + y[0], x[1] + y[1])))
    return sumCount[0] / float(sumCount[1])

def pipeline(ctx, input_path):
    sc = ctx
    nums = sc.parallelize([1, 2, 3, 4])
    avg = basicAvg(nums)
    return avg
