"""A feature registry as JSON bytes and back: how the feature store's manifest and the table
cache keep the description of the tables they hold."""

from __future__ import annotations

from dataclasses import fields

import orjson

from .registry import ENTITIES, FeatureRegistry, FeatureSpec

SPEC_FIELDS = tuple(f.name for f in fields(FeatureSpec))


def registry_bytes(registry: FeatureRegistry) -> bytes:
    """The registry as JSON (field by field: ``asdict``'s deep copy costs more than the
    tables of a small log)."""
    return orjson.dumps(
        {
            entity: [{f: getattr(spec, f) for f in SPEC_FIELDS} for spec in registry.specs(entity)]
            for entity in ENTITIES
        }
    )


def registry_of(data: bytes) -> FeatureRegistry:
    registry = FeatureRegistry()
    for entity, specs in orjson.loads(data).items():
        for raw in specs:
            tuples = {k: tuple(v) for k, v in raw.items() if isinstance(v, list)}
            registry.register(entity, FeatureSpec(**{**raw, **tuples}))
    return registry
