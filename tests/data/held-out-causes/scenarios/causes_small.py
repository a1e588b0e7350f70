import os, sys
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
from pyspark.sql import SparkSession
from perfx.isolation.runner import with_worker_sockets
from perfx.explain.engine import explain
from tests.causes.judge import diagnosed, lead_right
from tests.causes.scenarios import find_injected_task, run_scenario, wait_for_injected
ev = "/tmp/cold/events"; os.makedirs(ev, exist_ok=True)
spark = (with_worker_sockets(SparkSession.builder.master("local[2]")).appName("cold")
  .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
  .config("spark.eventLog.enabled", "true").config("spark.eventLog.dir", "file://" + ev)
  .config("spark.eventLog.compress", "false").config("spark.eventLog.rolling.enabled", "false")
  .config("spark.sql.shuffle.partitions", "4").config("spark.driver.memory", "1g").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
kinds = sys.argv[1].split(",")
for seed in range(int(sys.argv[2]), int(sys.argv[3])):
    for kind in kinds:
        inj = run_scenario(spark, kind, seed=seed)
        log = wait_for_injected(ev, inj)
        task = find_injected_task(log, inj)
        a = explain(log, f"WHY TASK '{task}' SLOWER")
        ok = lead_right(a, log, kind) and kind in diagnosed(a, log)
        print(kind, seed, task, "OK" if ok else "WRONG", a.gap.diagnosis.name if a.gap and a.gap.diagnosis else None, flush=True)
        if not ok:
            print(a.render_text(width=200), flush=True)
spark.stop()
