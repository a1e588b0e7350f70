"""Spark's monitoring REST API (a History Server or a live application's UI) as a source of
the same canonical tables an event log gives."""
