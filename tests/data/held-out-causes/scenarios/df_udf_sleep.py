"""A Python UDF inside a DataFrame stage that sleeps 0.4 s on 5 rows of partition p
(a remote call, off every CPU); every row goes through the same cheap UDF otherwise."""
import sys
sys.path.insert(0, "/tmp/probe-diagnosis")
from common import *

seed = seed_arg(); name = "df_udf_sleep"; rng = rng_for(name, seed)
spark = session(f"{name}-{seed}", extra={"spark.sql.adaptive.enabled": "false"})
warm_up(spark)
n = rng.randint(20, 30); p = rng.randrange(2, n)
per = 15000
from pyspark.sql import functions as F
from pyspark.sql.types import LongType

def f(pid, i):
    import time
    if pid == p and i % per in (100, 2000, 4000, 6000, 8000):
        time.sleep(0.4)
    return cheap(str(i))

u = F.udf(f, LongType())
df = spark.range(0, n * per, 1, n)
desc = f"probe-{name}-{seed}"
with described(spark, desc):
    df.select(u(F.spark_partition_id(), F.col("id")).alias("h")).agg(F.sum("h")).collect()
finish(spark, name, seed, desc, n, p, f"UDF stage of {n} tasks")
