"""A feature store: a fleet's history of event logs and job histories as Parquet, one
partition per application, so that questions read only the rows they need.

``ingest`` reads logs (local or remote, in parallel or on Spark) into a store, ``manifest``
keeps what was read from which file, ``partition`` writes and reads one application's
tables, ``read`` turns a store (or the part of it a question needs) back into a ``Log``."""
