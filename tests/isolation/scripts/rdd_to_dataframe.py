"""An RDD turned into a DataFrame, by ``rdd.toDF`` and by ``spark.createDataFrame(rdd)``,
and a DataFrame's ``.rdd`` used again: the RDD part is traced, the rest is Spark SQL."""

from pyspark.sql import Row, SparkSession

spark = SparkSession.builder.appName("rdd to dataframe").getOrCreate()
totals = spark.sparkContext.parallelize([("a", 1), ("b", 2), ("a", 3), ("c", 5)], 2).reduceByKey(
    lambda a, b: a + b
)
frame = totals.toDF(["k", "v"])
print(sorted(frame.collect()))
print(sorted(spark.createDataFrame(totals.map(lambda kv: Row(key=kv[0], total=kv[1]))).collect()))
print(spark.createDataFrame(totals, "k string, v long").groupBy().sum("v").collect())
print(frame.rdd.map(lambda row: row.v * 2).sum())
