"""UDFs of callables without a name of their own, a ``functools.partial`` and an object with
``__call__``, as row UDFs and an Arrow-optimised one: PySpark names each one's column after
its class (``partial(x)``, ``Tagger(x)``). The columns' names are printed with the rows."""

import functools

from pyspark.sql import SparkSession
from pyspark.sql.functions import udf


def scaled(x, factor):
    return x * factor


class Tagger:
    def __call__(self, x):
        return f"t{x % 3}"


if __name__ == "__main__":
    spark = SparkSession.builder.appName("callable UDFs").getOrCreate()
    frame = spark.range(4).selectExpr("cast(id as int) as x")
    triple = udf(functools.partial(scaled, factor=3), "int")
    tag = udf(Tagger(), "string")
    quintuple = udf(functools.partial(scaled, factor=5), "int", useArrow=True)
    chosen = frame.select("x", triple("x"), tag("x"), quintuple("x"))
    print(chosen.columns)
    print(sorted(tuple(row) for row in chosen.collect()))
