"""Logs in: readers for Spark event logs, tabular logs and host metrics, the canonical tables
and the feature registry, and the EC2-style fixture generator."""
