"""Hadoop MapReduce job history files (``.jhist``, Avro JSON): ``reader`` finds and reads the
files into a Log, ``events`` folds each file's events into a job, ``tables`` turns the jobs
into the canonical tables and their feature specs."""
