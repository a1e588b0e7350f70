"""The provenance every traced record carries, as a flat tuple (no objects per record).

``impact`` lineage: ``(value, path, source, rest, shuffle)``
``full`` lineage:   ``(value, path, source, rest, shuffle, compute, inputs)``

* ``path`` (ns): the total latency of the record's stage input plus the time spent on it in
  this stage so far; at a stage end it becomes the row's ``total_latency_ms``.
* ``source``: the most impactful source (MIS), the id of the input record behind ``path``.
* ``rest`` (ns): the path latency of the slowest inputs whose MIS differs from ``source``
  (``ids.NO_LATENCY`` if none); at a stage end it becomes ``remediated_latency_ms``.
* ``shuffle`` (ns): the post-shuffle merge share this record got at the start of its stage.
* ``compute`` (ns, full only): UDF time spent on it in this stage (``in_latency_ms``).
* ``inputs`` (full only): the ids of the stage inputs it derives from (``in_ids``).

Every UDF call adds its time to ``path``, ``rest`` and ``compute``: the time lies on the path
of every input the record derives from.
"""

from __future__ import annotations

from collections import namedtuple

TracedRecord = namedtuple("TracedRecord", "value out_id latency_ms source remediated_ms")
TracedRecord.__doc__ = """An output record of a traced run with its provenance: the id of its
row in the output table, its total latency, its most impactful source record and the latency
it would have had without that source."""
