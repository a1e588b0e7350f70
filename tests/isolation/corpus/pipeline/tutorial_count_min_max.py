# perfx corpus: the pipeline form of pyspark-tutorial's tutorial/pyspark-examples/rdds/count_min_max.py
# (origin, licence and edits in ../SOURCES.md). Edits to fit pipeline(ctx, input_path):
#   1. the script's top-level statements are the body of pipeline(ctx, input_path), after the functions it defines (the program reads no input: input_path = sys.argv[1] is gone)
#   2. SparkSession set-up removed; spark.sparkContext.parallelize -> ctx.parallelize
#   3. print("final_triplet=", final_triplet) and spark.stop() -> return final_triplet (a driver value)

from __future__ import print_function

import sys

from pyspark.sql import SparkSession

#-------------------------------------------
def minmax(partition):
	first_time = False
	#count
	#min2
	#max2
	for x in partition:
		if (first_time == False):
			count = 1
			min2 = x
			max2 = x
			first_time = True
		else:
			count = count + 1
			max2 = max(x, max2)
			min2 = min(x, min2)
	#end-for
	#
	return [(count, min2, max2)]
#end-def
#---------------------
def iterate_partition(partition):
   elements = []
   for x in partition:
      elements.append(x)
   print("elements=", elements)
   #print ("==================")
#end-def
#-------------------------
def add3(t1, t2):
	count = t1[0] + t2[0]
	min2 = min(t1[1], t2[1])
	max2 = max(t1[2], t2[2])
	return (count, min2, max2)
#end-def

def pipeline(ctx, input_path):
    #
    print ("This is the name of the script: ", sys.argv[0])
    print ("Number of arguments: ", len(sys.argv))
    print ("The arguments are: " , str(sys.argv))
    #

    #   DEFINE your input path
    print("input_path: ", input_path)

    #   CREATE a new RDD[String]
    #lines = spark.sparkContext.textFile(input_path)
    # APPLY a SET of TRANSFORMATIONS...

    data = [10, 20, 30, 44, 55, 3, 4, 60, 50, 5, 2, 2, 20, 20, 10, 30, 70]
    print("data=", data)
    print("==============")

    #
    rdd = ctx.parallelize(data, 4)
    print("rdd.collect()=", rdd.collect())
    print("==============")
    #
    rdd.foreachPartition(iterate_partition)
    print("==============")
    #

    count_min_max_rdd = rdd.mapPartitions(minmax)
    print("minmax_rdd.collect()=", count_min_max_rdd.collect())

    final_triplet = count_min_max_rdd.reduce(add3)
    return final_triplet
