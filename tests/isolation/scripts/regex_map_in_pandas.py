"""The regex script with mapInPandas: the function gets the partition's batches of lines."""

import re
import sys

from pyspark.sql import SparkSession

PATTERN = re.compile(r"^(a+)+$")


def keep_only_a(batches):
    for frame in batches:
        yield frame[frame["value"].map(lambda line: PATTERN.match(line) is not None)]


if __name__ == "__main__":
    spark = SparkSession.builder.appName("regex mapInPandas").getOrCreate()
    lines = spark.read.text(sys.argv[1])
    print("matching lines:", lines.mapInPandas(keep_only_a, "value string").count())
    spark.stop()
