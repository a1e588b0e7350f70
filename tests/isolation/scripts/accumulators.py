"""Accumulators as programs use them (a probe of PySpark programs): added to by a function of
a dataset the program caches before its first action, which plain Spark computes once, and
by an action's own function (foreach), run once per action, and by the map side of a
shuffle, which plain Spark runs once for every action after it (its files are read again)."""

from pyspark.sql import SparkSession

sc = SparkSession.builder.master("local[2]").appName("accumulators").getOrCreate().sparkContext
seen, total = sc.accumulator(0), sc.accumulator(0)


def note(x):
    seen.add(1)
    return x * 2


kept = sc.parallelize(range(20), 2).map(note).cache()
print(kept.count(), kept.sum(), seen.value)
kept.foreach(lambda x: total.add(x))
print(sorted(kept.filter(lambda x: x > 30).collect()), seen.value, total.value)
keyed = sc.accumulator(0)


def key(x):
    keyed.add(1)
    return (x % 3, x)


summed = sc.parallelize(range(30), 2).map(key).reduceByKey(lambda a, b: a + b)
print(sorted(summed.collect()), summed.count(), keyed.value)  # the map side runs once
