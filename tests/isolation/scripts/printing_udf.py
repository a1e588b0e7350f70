"""A pandas UDF that prints, as scripts do while they are written: its prints are the
workers' output, never the script's (perfx times a UDF's only batch again row by row on the
driver, and a grouped map's ``print(df)`` printed there, after the script's own output)."""

import time

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql.functions import pandas_udf

spark = SparkSession.builder.appName("printing udf").getOrCreate()


@pandas_udf("long")
def doubled(values: pd.Series) -> pd.Series:
    print("in the worker:", len(values))
    time.sleep(0.001 * len(values))  # a batch worth timing row by row (udf.OUTLIER_MIN_NS)
    return values * 2


print(spark.range(5, numPartitions=1).select(doubled("id")).collect())
spark.stop()
