"""The grouped-map pandas UDF of PySpark 2.3's API: ``@pandas_udf(schema, GROUPED_MAP)``
handed to ``GroupedData.apply``, which PySpark passes on to ``applyInPandas``; one function
of a group, one of its key and the group (a traced run failed it: "must take either one
argument (data) or two arguments (key, data)"). A callable whose ``__call__`` takes the key
and the group has three parameters, ``self`` counted: PySpark refuses it, and so must a traced
run (it ran it, its timer taking two)."""

import warnings

from pyspark.sql import SparkSession
from pyspark.sql.functions import PandasUDFType, pandas_udf

warnings.filterwarnings("ignore", category=UserWarning)  # apply's and PandasUDFType's notices
spark = SparkSession.builder.appName("grouped map apply").getOrCreate()
frame = spark.createDataFrame([(1, 1.0), (1, 2.0), (2, 3.0), (2, 5.0), (2, 10.0)], ("id", "v"))


@pandas_udf("id long, v double", PandasUDFType.GROUPED_MAP)
def centred(group):
    return group.assign(v=group.v - group.v.mean())


@pandas_udf("id long, v double", PandasUDFType.GROUPED_MAP)
def sized(key, group):
    return group.assign(v=float(len(group)) + key[0])


class Scaled:
    def __call__(self, key, group):
        return group


print(sorted(frame.groupby("id").apply(centred).collect()))
print(sorted(frame.groupby("id").apply(sized).collect()))
try:
    frame.groupby("id").applyInPandas(Scaled(), "id long, v double").collect()
except Exception as refused:  # PySparkValueError: INVALID_PANDAS_UDF
    print(type(refused).__name__, "INVALID_PANDAS_UDF" in str(refused))
spark.stop()
