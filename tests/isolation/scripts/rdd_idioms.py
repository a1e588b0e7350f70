"""RDD idioms of public PySpark programs that a traced run got wrong (a probe of public
programs): a group's values are a ResultIterable, joins and mapValues read a wider record's
first two items, ``rdd + rdd`` is a union, a range is sliced as PySpark slices one, and a
missing input fails at the action that reads it, where a program catches it."""

from py4j.protocol import Py4JJavaError
from pyspark import SparkContext

sc = SparkContext("local[2]", "rdd idioms")
pairs = sc.parallelize([("a", 1), ("b", 2), ("a", 5)])
print([(k, type(vs).__name__, vs.maxindex) for k, vs in sorted(pairs.groupByKey().collect())])
wide = sc.parallelize([("a", 1, "apple"), ("b", 2, "banana")])
other = sc.parallelize([("a", 101, "ant"), ("b", 102, "burro")])
print(sorted(wide.join(other).collect()), wide.mapValues(lambda v: v * 10).collect())
print((pairs + wide).count())
print(sc.parallelize(range(1, 12), 3).glom().collect())
missing = sc.textFile("no/such/input.txt")
try:
    missing.first()
except Py4JJavaError:
    print("no such input")
sc.stop()
