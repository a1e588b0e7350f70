"""Lineage stores: ``open_store(url)`` picks one from a URL.

``None`` -> Parquet under ``$PERFX_HOME/runs`` (``~/.perfx/runs``); ``ignite://host:port``
-> Apache Ignite; anything else -> Parquet under that path or URI."""

from __future__ import annotations

from .base import LineageStore


def open_store(url: str | None = None) -> LineageStore:
    if url and url.startswith("ignite://"):
        from .ignite import IgniteStore

        return IgniteStore(url)
    from .parquet import ParquetStore

    return ParquetStore(url)


__all__ = ["LineageStore", "open_store"]
