"""A complete program for ``perfx isolate``: how many ratings of each score (1-5) a file of
movies holds, one movie a line (``movie_id:user_rating,user_rating,...``).

perfx imports the file and calls ``pipeline(ctx, input_path)``. ``ctx`` stands for the
SparkContext (``textFile``, ``parallelize``); the datasets it gives have the RDD operators
(map, flatMap, filter, mapValues, reduceByKey, groupByKey, aggregateByKey, join, ...), and
``pipeline`` returns the last one without collecting it: perfx runs it traced.
"""


def scores(line):
    """(score, 1) for each rating of one movie."""
    _, ratings = line.split(":", 1)
    return [(int(pair.rsplit("_", 1)[1]), 1) for pair in ratings.split(",")]


def pipeline(ctx, input_path):
    return ctx.textFile(input_path).flatMap(scores).reduceByKey(lambda a, b: a + b)
