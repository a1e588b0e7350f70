# perfx corpus: the pipeline form of learning-spark's src/python/AvgMapPartitions.py
# (origin, licence and edits in ../SOURCES.md). Edits to fit pipeline(ctx, input_path):
#   1. the __main__ block is pipeline(ctx, input_path) (the program reads no input)
#   2. the master argument is gone; sc = SparkContext(cluster, "Sum") -> sc = ctx
#   3. print(avg) -> return avg (a driver value)

"""
>>> from pyspark.context import SparkContext
>>> sc = SparkContext('local', 'test')
>>> b = sc.parallelize([1, 2, 3, 4])
>>> avg(b)
2.5
"""

import sys

from pyspark import SparkContext


def partitionCtr(nums):
    """Compute sumCounter for partition"""
    sumCount = [0, 0]
    for num in nums:
        sumCount[0] += num
        sumCount[1] += 1
    return [sumCount]


def combineCtrs(c1, c2):
    return (c1[0] + c2[0], c1[1] + c2[1])


def basicAvg(nums):
    """Compute the avg"""
    sumCount = nums.mapPartitions(partitionCtr).reduce(combineCtrs)
    return sumCount[0] / float(sumCount[1])

def pipeline(ctx, input_path):
    sc = ctx
    nums = sc.parallelize([1, 2, 3, 4])
    avg = basicAvg(nums)
    return avg
