"""Control: a uniform DataFrame (JVM) shuffle: spark.range -> groupBy(id % K) -> count, 24
reduce partitions of equal keys; nothing injected."""
import sys
sys.path.insert(0, "/tmp/probe-diagnosis")
from common import *

seed = seed_arg(); name = "control_df"; rng = rng_for(name, seed)
spark = session(f"{name}-{seed}", extra={"spark.sql.adaptive.enabled": "false",
                                         "spark.sql.autoBroadcastJoinThreshold": "-1"})
warm_up(spark)
n = 24
K = 200_000 + rng.randrange(1000)
from pyspark.sql import functions as F
left = spark.range(0, 6_000_000, 1, 8).select((F.col("id") % K).alias("key"), (F.col("id") * 7).alias("v"))
right = spark.range(0, K, 1, 4).select(F.col("id").alias("key"), (F.col("id") % 13).alias("w"))
desc = f"probe-{name}-{seed}"
with described(spark, desc):
    left.join(right, "key").agg(F.sum(F.col("v") + F.col("w"))).collect()
finish(spark, name, seed, desc, n, -1, f"join stage of {n} tasks")
