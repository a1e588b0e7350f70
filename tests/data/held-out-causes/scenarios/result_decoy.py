"""GROUND TRUTH: python wait (1.5 s sleep in the Python worker, partition p). Partition p also returns
a larger result to the driver (a list of 4000 small ints, ~20-40 KB, instead of one int): a volume that
differs many-fold but costs microseconds. Same input records and bytes.
Expected: python wait / computation skew off the JVM CPU; NOT 'result size'."""
import sys, shutil
sys.path.insert(0, "/tmp/probe3-diagnosis")
from common import *

seed = seed_arg(); name = "result_decoy"; rng = rng_for(name, seed)
spark = session(f"{name}-{seed}")
warm_up(spark)
sc = spark.sparkContext
n = rng.randint(20, 30); p = rng.randrange(2, n)
work = f"{DATA}/{name}-{seed}"; shutil.rmtree(work, ignore_errors=True)
counts = [12000] * n
paths = write_lines(work, counts, lambda q, i: f"{q:04d},{i:08d},{rng.getrandbits(64):016x}")

def part(idx, it):
    import time
    s = sum(cheap(l, passes=3) for l in it)
    if idx == p:
        time.sleep(1.5)
        return [s + j for j in range(4000)]
    return [s]

desc = f"probe-{name}-{seed}"
with described(spark, desc):
    out = text_partitions(sc, paths).mapPartitionsWithIndex(part).collect()
finish(spark, name, seed, desc, n, p, f"result stage of {n} tasks", returned=len(out))
