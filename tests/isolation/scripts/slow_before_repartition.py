"""One slow record before a repartition: the task that loses the most time runs the
repartition's first half, a Spark stage in which no stage end of the traced run times
records (``perfx why`` stopped there: "traced no records in Spark stage 5")."""

import time

from pyspark.sql import SparkSession


def parse(number):
    if number == 0:
        time.sleep(1.5)
    return number


spark = SparkSession.builder.appName("slow before repartition").getOrCreate()
spread = spark.sparkContext.parallelize(range(40), 4).map(parse).repartition(4)
print(sum(spread.collect()))
spark.stop()
