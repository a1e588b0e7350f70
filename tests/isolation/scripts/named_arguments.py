"""UDFs given their columns by name (``f(s=col)``, PySpark 3.5 and later) as well as by
position: a row UDF of plain parameters, one with a default, and a pandas UDF."""

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql.functions import col, pandas_udf, udf


@udf("int")
def width(s):
    return len(s)


@udf("string")
def padded(s, fill="."):
    return s.rjust(6, fill)


@pandas_udf("int")
def letters(s: pd.Series) -> pd.Series:
    return s.str.len()


if __name__ == "__main__":
    spark = SparkSession.builder.appName("named arguments").getOrCreate()
    frame = spark.createDataFrame([("abc",), ("de",), ("fghij",)], ["value"])
    value = col("value")
    rows = frame.select(
        width(s=value),
        width(value),
        padded(value),
        padded(s=value, fill=value.substr(1, 1)),
        letters(s=value),
    ).collect()
    print(sorted(tuple(row) for row in rows))
