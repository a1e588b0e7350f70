"""UDFs made as the module is read, before the session its ``main()`` makes with settings of
its own (a partition count): a row UDF, also registered for SQL, and a pandas UDF."""

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql.functions import pandas_udf, udf
from pyspark.sql.types import IntegerType, StringType


@udf(StringType())  # a type named by a string is read by a session: none yet
def shouted(word):
    return word.upper()


@pandas_udf(IntegerType())
def lengths(words: pd.Series) -> pd.Series:
    return words.str.len()


def main():
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("udfs before session")
        .config("spark.default.parallelism", "3")
        .getOrCreate()
    )
    frame = spark.createDataFrame([("ab",), ("cde",), ("f",)], ["word"])
    rows = frame.select("word", shouted("word"), lengths("word")).collect()
    print(spark.sparkContext.defaultParallelism, sorted(tuple(row) for row in rows))
    spark.udf.register("shouted_in_sql", shouted)
    frame.createOrReplaceTempView("words")
    print(sorted(row[0] for row in spark.sql("SELECT shouted_in_sql(word) FROM words").collect()))


if __name__ == "__main__":
    main()
