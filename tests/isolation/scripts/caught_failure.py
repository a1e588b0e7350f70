"""A script that catches a failed job and goes on (a probe of PySpark programs): plain
PySpark raises its PythonException, which the script's handler expects and names."""

from pyspark.errors import PythonException
from pyspark.sql import SparkSession

spark = SparkSession.builder.master("local[2]").appName("caught failure").getOrCreate()
sc = spark.sparkContext
try:
    print(sc.parallelize([1, 2, 0, 4], 2).map(lambda x: 10 // x).collect())
except PythonException as failed:
    print("caught", type(failed).__name__)
words = sc.parallelize(["a b", "b c", "c a a"] * 50, 2).flatMap(str.split)
print(sorted(words.map(lambda w: (w, 1)).reduceByKey(lambda a, b: a + b).collect()))
spark.stop()
