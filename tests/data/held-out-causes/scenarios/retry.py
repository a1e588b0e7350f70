"""Retried task: partition p raises on its first attempt only (after doing its work; a marker
file says it has failed once) and succeeds on retry. local[2,4], spark.task.maxFailures=4."""
import os, sys, shutil
sys.path.insert(0, "/tmp/probe-diagnosis")
from common import *

seed = seed_arg(); name = "retry"; rng = rng_for(name, seed)
spark = session(f"{name}-{seed}", master="local[2,4]", extra={"spark.task.maxFailures": "4"})
warm_up(spark)
n = rng.randint(20, 30); p = rng.randrange(2, n)
work = f"{DATA}/{name}-{seed}"; shutil.rmtree(work, ignore_errors=True)
paths = write_lines(work, [12000] * n, lambda q, i: f"{q:04d},{i:08d},{rng.getrandbits(64):016x}")
marker = f"{work}/failed-once"

def run(index, lines):
    total = sum(cheap(l) for l in lines)
    if index == p and not os.path.exists(marker):
        open(marker, "w").close()
        raise RuntimeError(f"injected failure of partition {index} (first attempt)")
    yield total

desc = f"probe-{name}-{seed}"
with described(spark, desc):
    text_partitions(spark.sparkContext, paths).mapPartitionsWithIndex(run).sum()
finish(spark, name, seed, desc, n, p, f"result stage of {n} tasks")
