"""Spark event logs: find them, decode Spark's stream framings, parse events, build tables.

``open`` finds logs and yields their lines (whatever the codec or rolling layout), ``events``
turns the events perfx uses into canonical values (Spark 1.x-4.x spellings), ``build`` keeps
one application's state and turns it into the app/job/stage/task tables."""
