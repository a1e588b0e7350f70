"""Record-level isolation (PerfDebug) on stock PySpark: traced execution, lineage stores,
latency propagation and culprit queries."""
