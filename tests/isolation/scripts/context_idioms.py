"""How tutorials get and use their context, which a traced run got wrong (a probe of public
programs): ``from pyspark.context import SparkContext`` (the script ran untraced, and perfx
said it created no context), ``rdd.context.getConf()`` (it stopped: "not traced"), and
``textFile(path, use_unicode=False)`` (its lines were str, not bytes)."""

import os
import tempfile

from pyspark.context import SparkContext

sc = SparkContext("local[2]", "context idioms")
numbers = sc.parallelize([1, 2, 3])
print(numbers.context.getConf().get("spark.app.name") == sc.appName, numbers.map(str).collect())
path = os.path.join(tempfile.mkdtemp(), "lines.txt")
with open(path, "w", encoding="utf-8") as lines:
    lines.write("alpha\nbeta\n")
print(sc.textFile(path, use_unicode=False).collect())
sc.stop()
