"""What Python says of a text read's DataFrame, whose ``.rdd`` perfx traces: its class's
name and module are Spark's (a traced run printed perfx's ``TracedTextFrame``)."""

import tempfile
from pathlib import Path

from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("text frame type").getOrCreate()
with tempfile.TemporaryDirectory() as folder:
    path = Path(folder) / "lines.txt"
    path.write_text("alpha\nbeta\ngamma\n", encoding="utf-8")
    frame = spark.read.text(str(path))
    kind = type(frame)
    print(kind.__name__, kind.__qualname__, kind.__module__, frame.rdd.map(len).sum())
