"""The API before SparkSession: a SparkContext made from a SparkConf, a SQLContext around
it, and DataFrames made from RDDs by SQLContext.createDataFrame and rdd.toDF."""

from pyspark import SparkConf, SparkContext
from pyspark.sql import Row, SQLContext

conf = SparkConf().setAppName("old sql context").setMaster("local[2]")
sc = SparkContext(conf=conf)
sqlContext = SQLContext(sc)
rows = sc.parallelize([Row(k="a", v=1), Row(k="b", v=2), Row(k="a", v=3)], 2)
print(sorted(sqlContext.createDataFrame(rows).groupBy("k").sum("v").collect()))
rows.toDF().createOrReplaceTempView("t")
print(sqlContext.sql("SELECT k, COUNT(*) AS n FROM t GROUP BY k ORDER BY k").collect())
words = sc.parallelize(["x y", "y z"]).flatMap(str.split)
print(sorted(words.map(lambda w: (w, 1)).reduceByKey(lambda a, b: a + b).collect()))
sc.stop()
