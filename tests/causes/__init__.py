"""The injected-cause suite: real PySpark runs on local[2] in which ONE task is made slow by a
known cause (data skew, computation skew, GC pressure, spill, shuffle-read skew, cold start),
so that perfx's answer to "WHY TASK <injected> SLOWER" can be checked against the cause.

``scenarios`` runs one scenario and finds its injected task in the event log;
``make_runs`` writes a directory of runs (event log + ``injected.json``);
``check`` measures each injected task against its stage peers (the verification table).
"""
