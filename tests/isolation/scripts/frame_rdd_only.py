"""A script whose only Python runs on a DataFrame's ``.rdd``, which perfx does not trace, on
two partitions: no stage to compare a task in, and no record-level answer, and the refusal
says where its Python ran."""

from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("frame rdd only").getOrCreate()
frame = spark.createDataFrame([(i, f"w{i}") for i in range(40)], ["n", "word"]).repartition(2)
print(sum(frame.rdd.map(lambda row: row.n * 2).collect()))
