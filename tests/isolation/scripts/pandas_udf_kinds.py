"""The pandas UDF kinds PySpark tells apart by their type hints, besides Series to Series:
an iterator of Series (one column, and a tuple of them for two) to an iterator of Series,
Series to a scalar and an iterator of Series to a scalar (grouped aggregates), and an
Arrow-optimised row UDF. PySpark makes some of these kinds only with a session: the
session comes first, as in many scripts. ``pandas_udf`` is imported from the module that
defines it, as some programs do."""

from collections.abc import Iterator

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql.functions import udf
from pyspark.sql.pandas.functions import pandas_udf  # where PySpark defines it

spark = SparkSession.builder.appName("pandas udf kinds").getOrCreate()


@pandas_udf("long")
def lengths(batches: Iterator[pd.Series]) -> Iterator[pd.Series]:
    for texts in batches:
        yield texts.str.len()


@pandas_udf("long")
def shifted_lengths(batches: Iterator[tuple[pd.Series, pd.Series]]) -> Iterator[pd.Series]:
    for texts, shifts in batches:
        yield texts.str.len() + shifts


@pandas_udf("double")
def mean_length(texts: pd.Series) -> float:
    return float(texts.str.len().mean())


@pandas_udf("double")
def longest(batches: Iterator[pd.Series]) -> float:
    return float(max(texts.str.len().max() for texts in batches))


@udf("int", useArrow=True)
def arrow_width(text):
    return len(text)


frame = spark.createDataFrame([(i % 3, "w" * (i % 7 + 1)) for i in range(60)], ["k", "value"])
by_key = frame.groupBy("k")
print(sorted(frame.select(lengths("value"), shifted_lengths("value", "k")).collect()))
print(sorted(by_key.agg(mean_length("value")).collect()))  # one kind of aggregate a query
print(sorted(by_key.agg(longest("value")).collect()))
print(sorted(frame.select(arrow_width("value")).collect()))
