"""GROUND TRUTH: data skew with spill. A SQL sort (orderBy k) over n range partitions with a small
execution memory (spark.memory.fraction 0.05, 1g driver); one key value k=H (chosen to land in range
partition p >= 2) holds ~35 % of the rows, so that range partition alone receives ~1/3 of the rows,
must sort them and spills. Expected: spill 'with more volume' or data skew (shuffle read) -- both name
the real mechanism; 'computation skew' would be wrong."""
import sys
sys.path.insert(0, "/tmp/probe3-diagnosis")
from common import *

seed = seed_arg(); name = "sort_spill"; rng = rng_for(name, seed)
spark = session(f"{name}-{seed}", extra={"spark.sql.adaptive.enabled": "false",
                                          "spark.driver.memory": "1g",
                                          "spark.memory.fraction": "0.05",
                                          "spark.sql.shuffle.partitions": "24"})
warm_up(spark)
n = 24
frac = rng.uniform(0.25, 0.75)  # where the hot value sits in the key range -> its range partition
H = int(1_000_000 * frac)
rows = 2_400_000
df = spark.range(0, rows, 1, 8).selectExpr(
    f"case when id % 100 < 35 then {H} else cast(hash(id) % 500000 as bigint) + 500000 - 500000 end as k",
    "sha1(cast(id as string)) as s")
df = df.selectExpr("abs(k) % 1000000 as k", "s")
desc = f"probe-{name}-{seed}"
with described(spark, desc):
    df.orderBy("k").write.format("noop").mode("overwrite").save()
finish(spark, name, seed, desc, n, -3, f"sort stage of {n} tasks", H=H)
