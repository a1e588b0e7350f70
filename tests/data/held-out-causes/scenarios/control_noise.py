"""Control: a uniform stage with natural noise (record counts +-10 %, seeded); nothing injected."""
import sys, shutil
sys.path.insert(0, "/tmp/probe-diagnosis")
from common import *

seed = seed_arg(); name = "control_noise"; rng = rng_for(name, seed)
spark = session(f"{name}-{seed}")
warm_up(spark)
n = rng.randint(24, 34)
work = f"{DATA}/{name}-{seed}"; shutil.rmtree(work, ignore_errors=True)
counts = [int(12000 * rng.uniform(0.9, 1.1)) for _ in range(n)]
paths = write_lines(work, counts, lambda q, i: f"{q:04d},{i:08d},{rng.getrandbits(64):016x}")
desc = f"probe-{name}-{seed}"
with described(spark, desc):
    text_partitions(spark.sparkContext, paths).map(cheap).sum()
finish(spark, name, seed, desc, n, -1, f"result stage of {n} tasks", counts=counts)
