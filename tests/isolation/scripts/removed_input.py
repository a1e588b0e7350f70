"""A script that reads its input from a temporary folder, which it removes once done (a common
shape): its UDF's slow rows cannot be located in the input afterwards, and the answer says
why."""

import tempfile
import time
from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.sql.functions import udf


@udf("int")
def weighed(line):
    if line.startswith("slow"):
        time.sleep(0.01)
    return len(line)


spark = SparkSession.builder.appName("removed input").getOrCreate()
with tempfile.TemporaryDirectory() as folder:
    path = Path(folder) / "lines.txt"
    path.write_text("".join(f"{'slow' if i % 50 == 7 else 'fast'} {i}\n" for i in range(200)))
    lines = spark.read.text(str(path))
    print(lines.select(weighed("value").alias("n")).groupBy().sum("n").collect()[0][0])
