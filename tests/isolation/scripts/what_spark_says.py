"""What a script prints of its session, its context and its RDDs, as tutorials do: Spark's
own words under perfx too (a traced script printed ``TracedDataset(...)``, a perfx session
class and, after ``persist(MEMORY_AND_DISK_2)``, "1x Replicated"); and an RDD told from a
list by ``isinstance``, as a helper taking either does (a traced dataset was taken for a
list, and the script printed another count with exit 0: a probe of PySpark programs)."""

import re

from pyspark import RDD, StorageLevel
from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("what spark says").getOrCreate()
sc = spark.sparkContext
print(spark)
print(sc)
doubled = sc.parallelize(range(10), 2).map(lambda x: x * 2)
print(doubled.count(), doubled.sum())  # read twice
print(doubled.is_cached, doubled.getStorageLevel())
doubled.persist(StorageLevel.MEMORY_AND_DISK_2)
print(doubled.is_cached, doubled.getStorageLevel())
print(re.sub(r"\[\d+\]", "[id]", repr(doubled)))  # ids number every RDD the session built


def as_rdd(data):
    """An RDD as it is, anything else made one."""
    return data if isinstance(data, RDD) else sc.parallelize([data], 1)


print(isinstance(doubled, RDD), as_rdd(doubled).count(), as_rdd(doubled.collect()).count())
spark.stop()
