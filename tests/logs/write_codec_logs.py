"""Writes real event logs with pyspark, one application per event-log configuration, all in
one JVM (a SparkContext is stopped before the next starts): Spark 4's defaults, then each
``spark.eventLog.compression.codec`` with ``spark.eventLog.compress=true`` and rolling off.

Usage: python write_codec_logs.py OUT_DIR  ->  OUT_DIR/<config name>/<the app's log>
Run in a subprocess by test_codec_logs.py, so that its JVM does not meet the shared session's.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pyspark import SparkConf, SparkContext

CODECS = ("lz4", "lzf", "snappy", "zstd")


def configs() -> dict[str, dict[str, str]]:
    """Config name -> event-log settings ("default" sets none: whatever Spark 4 does)."""
    named = {"default": {}}
    for codec in CODECS:
        named[codec] = {
            "spark.eventLog.compress": "true",
            "spark.eventLog.compression.codec": codec,
            "spark.eventLog.rolling.enabled": "false",
        }
    return named


def run_job(sc: SparkContext) -> None:
    """The same small two-stage job (a shuffle, so both read and write metrics appear)."""
    words = sc.parallelize(range(20000), 4).map(lambda n: (n % 97, n))
    words.reduceByKey(lambda a, b: a + b, 3).collect()


def main(out: Path) -> None:
    for name, settings in configs().items():
        log_dir = out / name
        log_dir.mkdir(parents=True, exist_ok=True)
        conf = (
            SparkConf()
            .setMaster("local[2]")
            .setAppName(f"perfx-codec-{name}")
            .set("spark.ui.enabled", "false")
            .set("spark.ui.showConsoleProgress", "false")
            .set("spark.eventLog.enabled", "true")
            .set("spark.eventLog.dir", log_dir.as_uri())
        )
        for key, value in settings.items():
            conf.set(key, value)
        sc = SparkContext(conf=conf)
        sc.setLogLevel("ERROR")
        run_job(sc)
        sc.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
