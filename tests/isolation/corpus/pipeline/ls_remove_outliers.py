# perfx corpus: the pipeline form of learning-spark's src/python/RemoveOutliers.py
# (origin, licence and edits in ../SOURCES.md). Edits to fit pipeline(ctx, input_path):
#   1. the __main__ block is pipeline(ctx, input_path) (the program reads no input)
#   2. the master argument is gone; sc = SparkContext(master, "Sum") -> sc = ctx
#   3. output = sorted(removeOutliers(nums).collect()) and the loop printing it -> return removeOutliers(nums)

"""
>>> from pyspark.context import SparkContext
>>> sc = SparkContext('local', 'test')
>>> b = sc.parallelize([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1000])
>>> sorted(removeOutliers(b).collect()
[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
"""

import sys
import math

from pyspark import SparkContext


def removeOutliers(nums):
    """Remove the outliers"""
    stats = nums.stats()
    stddev = math.sqrt(stats.variance())
    return nums.filter(lambda x: math.fabs(x - stats.mean()) < 3 * stddev)

def pipeline(ctx, input_path):
    sc = ctx
    nums = sc.parallelize([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1000])
    return removeOutliers(nums)
