"""Logs in: readers for Spark event logs, Hadoop job histories (``jhist``), tabular logs and
host metrics, the canonical tables and the feature registry."""
