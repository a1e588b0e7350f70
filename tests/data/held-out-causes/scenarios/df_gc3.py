"""GC pressure in a DataFrame (JVM) stage, heap-bound, with the parallel collector and a 48 MB young
generation (survivors promoted early, full collections as the old generation fills): groupBy(key).agg(collect_list(s)) with
one hot key of ~1.8M strings in reduce partition p, on a 700 MB driver heap (local mode: the
executor is the driver), so the hot task's growing list keeps the collector busy."""
import sys
sys.path.insert(0, "/tmp/probe-diagnosis")
from common import *

seed = seed_arg(); name = "df_gc3"; rng = rng_for(name, seed)
spark = session(f"{name}-{seed}", extra={"spark.sql.adaptive.enabled": "false",
                                         "spark.driver.memory": "700m",
                                         "spark.driver.extraJavaOptions": "-XX:+UseParallelGC -Xmn48m"})
warm_up(spark)
n = 24; p = rng.randrange(2, n)
K = 48_000
hot = next(k for k in range(K + rng.randrange(K), 100 * K) if partition_of(k, n) == p)
BASE, HOT = 3_600_000, 1_800_000
from pyspark.sql import functions as F
df = spark.range(0, BASE + HOT, 1, 8).select(
    F.when(F.col("id") < HOT, F.lit(hot)).otherwise(F.col("id") % K).alias("key"),
    F.concat(F.lit("value-"), F.col("id").cast("string"), F.lit("-xxxxxxxxxxxxxxxxxxxxxxxx")).alias("s"))
desc = f"probe-{name}-{seed}"
with described(spark, desc):
    df.groupBy("key").agg(F.size(F.collect_list("s")).alias("c")).agg(F.sum("c")).collect()
finish(spark, name, seed, desc, n, p, f"reduce stage of {n} tasks", hot=hot)
