"""The regex script with a pandas UDF: one call per Arrow batch of lines."""

import re
import sys

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql.functions import col, pandas_udf

PATTERN = re.compile(r"^(a+)+$")


@pandas_udf("boolean")
def only_a(lines: pd.Series) -> pd.Series:
    return lines.map(lambda line: PATTERN.match(line) is not None)


if __name__ == "__main__":
    spark = SparkSession.builder.appName("regex pandas udf").getOrCreate()
    lines = spark.read.text(sys.argv[1])
    print("matching lines:", lines.filter(only_a(col("value"))).count())
    spark.stop()
