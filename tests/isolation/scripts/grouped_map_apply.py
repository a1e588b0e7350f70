"""The grouped-map pandas UDF of PySpark 2.3's API: ``@pandas_udf(schema, GROUPED_MAP)``
handed to ``GroupedData.apply``, which PySpark passes on to ``applyInPandas``; one function
of a group, one of its key and the group (a traced run failed it: "must take either one
argument (data) or two arguments (key, data)")."""

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


print(sorted(frame.groupby("id").apply(centred).collect()))
print(sorted(frame.groupby("id").apply(sized).collect()))
spark.stop()
