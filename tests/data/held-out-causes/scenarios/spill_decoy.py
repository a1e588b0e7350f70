"""GROUND TRUTH: off-CPU wait (1.5 s Thread.sleep in the JVM, once, in partition p) in a JVM-only
window stage; partition p also spills a little (one hot window key of 3000 rows over a 2000-row
window-buffer spill threshold), which costs only milliseconds. Records are ~equal (+~6 %).
Expected: off-CPU wait; NOT 'spill' (the spill is small and cheap)."""
import sys
sys.path.insert(0, "/tmp/probe3-diagnosis")
from common import *

seed = seed_arg(); name = "spill_decoy"; rng = rng_for(name, seed)
spark = session(f"{name}-{seed}", extra={"spark.sql.adaptive.enabled": "false",
                                          "spark.sql.windowExec.buffer.in.memory.threshold": "1000",
                                          "spark.sql.windowExec.buffer.spill.threshold": "2000"})
warm_up(spark)
n = 24
p = rng.randrange(2, n)
H = next(k for k in range(10_000_000, 20_000_000) if partition_of(k, n) == p)
base = spark.range(0, n * 50_000, 1, 8).selectExpr("id % 200000 as k", "id as v")
hot = spark.range(0, 3000, 1, 8).selectExpr(f"cast({H} as bigint) as k", "id + 100000000 as v")
df = base.unionByName(hot).selectExpr("k", "v", "sum(v) over (partition by k) as s")
df = df.selectExpr("s", f"case when k = {H} and v = 100000000 then "
                   "length(reflect('java.lang.Thread', 'sleep', cast(1500 as bigint))) else 0 end as z")
desc = f"probe-{name}-{seed}"
with described(spark, desc):
    df.selectExpr("sum(s + z)").collect()
finish(spark, name, seed, desc, n, p, f"window stage of {n} tasks", H=H)
