"""(Verification variant of retry_model.py: collects, per partition, the Python worker pid, whether
it had to build the model, and how long that took.)
Retried task with a per-process cold start: every Python worker builds a "model" once
(~1.5 s of CPU, kept in the worker process); partition p raises on its first attempt only
(after its work; a marker file). The failed attempt's Python worker is discarded, so the
task that next needs a worker (the retry, or a neighbour) gets a fresh one and rebuilds the
model. local[2,4], spark.task.maxFailures=4. A warm-up job builds the model in both workers."""
import os, sys, shutil
sys.path.insert(0, "/tmp/probe-diagnosis")
from common import *

seed = seed_arg(); name = "retry_model_verify"; rng = rng_for(name, seed)
spark = session(f"{name}-{seed}", master="local[2,4]", extra={"spark.task.maxFailures": "4"})
warm_up(spark)
sc = spark.sparkContext
n = rng.randint(20, 30); p = rng.randrange(2, n)
work = f"{DATA}/{name}-{seed}"; shutil.rmtree(work, ignore_errors=True)
paths = write_lines(work, [12000] * n, lambda q, i: f"{q:04d},{i:08d},{rng.getrandbits(64):016x}")
marker = f"{work}/failed-once"

def model():
    import builtins, hashlib, os as _os
    m = getattr(builtins, "_probe_model", None)
    if m is None:
        m = hashlib.pbkdf2_hmac("sha256", b"model", b"salt", 1_500_000)
        builtins._probe_model = m
        builtins._probe_model_pid = _os.getpid()
    return m

def run(index, lines):
    import builtins, time as _t
    started = _t.perf_counter()
    fresh = getattr(builtins, "_probe_model", None) is None
    salt = model()[0]
    built_ms = round((_t.perf_counter() - started) * 1000)
    total = sum(cheap(l) ^ salt for l in lines)
    if index == p and not os.path.exists(marker):
        open(marker, "w").close()
        raise RuntimeError(f"injected failure of partition {index} (first attempt)")
    yield (index, os.getpid(), fresh, built_ms, total)

with described(spark, "warm-model"):
    sc.parallelize(range(8), 8).map(lambda x: model()[0]).sum()
desc = f"probe-{name}-{seed}"
with described(spark, desc):
    rows = text_partitions(sc, paths).mapPartitionsWithIndex(run).collect()
finish(spark, name, seed, desc, n, p, f"result stage of {n} tasks",
       workers=[r[:4] for r in rows])
