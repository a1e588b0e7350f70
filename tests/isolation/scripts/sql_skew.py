"""A pure Spark SQL script: most rows share one key, and the work after the shuffle by key
runs in one task. No Python code runs on the workers."""

import sys

from pyspark.sql import SparkSession

if __name__ == "__main__":
    spark = SparkSession.builder.appName("sql skew").getOrCreate()
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 400000
    facts = spark.range(rows, numPartitions=4).selectExpr(
        "CASE WHEN id % 10 < 8 THEN 0 ELSE id % 97 END AS key", "id"
    )
    hashed = facts.repartition(4, "key").selectExpr(
        "key", "sha2(sha2(cast(id AS string), 512), 512) AS digest"
    )
    counts = hashed.groupBy("key").agg({"digest": "max"}).count()
    print("keys:", counts)
    spark.stop()
