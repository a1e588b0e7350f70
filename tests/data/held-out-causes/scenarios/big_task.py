"""A large task: sc.parallelize ships each partition's data inside its task
(ParallelCollectionPartition); partition p's slice holds ~120 MB of bytes objects (the same
record count as its peers), so its task is ~120 MB to serialize, ship and deserialize."""
import sys, os
sys.path.insert(0, "/tmp/probe-diagnosis")
from common import *

seed = seed_arg(); name = "big_task"; rng = rng_for(name, seed)
spark = session(f"{name}-{seed}", extra={"spark.driver.memory": "2g"})
warm_up(spark)
sc = spark.sparkContext
n = rng.randint(20, 30); p = rng.randrange(2, n)
k = 12288  # 12 batches of 1024 (PySpark batch size): partitions align with batches
blob = os.urandom(10_000)
data = []
for q in range(n):
    for i in range(k):
        data.append(blob + i.to_bytes(4, "little") if q == p else f"{q:04d},{i:08d},{rng.getrandbits(64):016x}".encode())

def work(x):
    return cheap(x[-24:].hex())

desc = f"probe-{name}-{seed}"
with described(spark, desc):
    sc.parallelize(data, n).map(work).sum()
finish(spark, name, seed, desc, n, p, f"result stage of {n} tasks (parallelize)", mb=len(blob) * k / 1e6)
