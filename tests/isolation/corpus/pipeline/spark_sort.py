#
# Licensed to the Apache Software Foundation (ASF) under one or more
# contributor license agreements.  See the NOTICE file distributed with
# this work for additional information regarding copyright ownership.
# The ASF licenses this file to You under the Apache License, Version 2.0
# (the "License"); you may not use this file except in compliance with
# the License.  You may obtain a copy of the License at
#
#    http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
#
# perfx corpus: the pipeline form of Apache Spark's examples/src/main/python/sort.py
# (origin, licence and edits in ../SOURCES.md). Edits to fit pipeline(ctx, input_path):
#   1. the __main__ block is pipeline(ctx, input_path); the argv check is gone
#   2. SparkSession set-up removed; spark.read.text(sys.argv[1]).rdd.map(lambda r: r[0])
#      -> ctx.textFile(input_path)
#   3. the collect, the loop printing it and spark.stop() -> return sortedCount

import sys
from typing import Tuple

from pyspark import RDD
from pyspark.sql import SparkSession


def pipeline(ctx, input_path):
    lines = ctx.textFile(input_path)
    sortedCount: RDD[Tuple[int, int]] = (
        lines.flatMap(lambda x: x.split(" ")).map(lambda x: (int(x), 1)).sortByKey()
    )
    return sortedCount
