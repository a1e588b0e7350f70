"""A DataFrame script as users write it: count the lines a regex accepts, with a row UDF.
The regex backtracks badly on long lines of one letter that end in another."""

import re
import sys

from pyspark.sql import SparkSession
from pyspark.sql.functions import col, udf
from pyspark.sql.types import BooleanType

PATTERN = re.compile(r"^(a+)+$")


@udf(returnType=BooleanType())
def only_a(line):
    return PATTERN.match(line) is not None


if __name__ == "__main__":
    spark = SparkSession.builder.appName("regex udf").getOrCreate()
    lines = spark.read.text(sys.argv[1])
    print("matching lines:", lines.filter(only_a(col("value"))).count())
    spark.stop()
