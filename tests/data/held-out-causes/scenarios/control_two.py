"""Control: a stage of 2 equal tasks (textFile of 2 files -> map -> sum); nothing injected.
Also a 24-task stage before it so the app is not trivial."""
import sys, shutil
sys.path.insert(0, "/tmp/probe-diagnosis")
from common import *

seed = seed_arg(); name = "control_two"; rng = rng_for(name, seed)
spark = session(f"{name}-{seed}")
warm_up(spark)
work = f"{DATA}/{name}-{seed}"; shutil.rmtree(work, ignore_errors=True)
recs = rng.randint(15000, 25000)
paths = write_lines(work, [recs, recs], lambda q, i: f"{q:04d},{i:08d},{rng.getrandbits(64):016x}")
desc = f"probe-{name}-{seed}"
with described(spark, desc):
    text_partitions(spark.sparkContext, paths).map(cheap).sum()
finish(spark, name, seed, desc, 2, -2, "result stage of 2 tasks (ask about the slower)")
