"""NYC Taxi (PerfDebug section 5.2): the average cost of a trip per pickup borough, with map
+ aggregateByKey. A trip's borough is found by ray casting its pickup point against each
borough's polygon in turn; borough 4's boundary winds through thousands of vertices, so its
trips cost far more than the others: the expensive polygon test behind the case study.

Input: NYC TLC trip records, 14 comma-separated fields: medallion, hack_license, vendor_id,
rate_code, store_and_fwd_flag, pickup_datetime, dropoff_datetime, passenger_count,
trip_time_in_secs (8), trip_distance (9), pickup_longitude (10), pickup_latitude (11),
dropoff_longitude, dropoff_latitude.
"""

from __future__ import annotations

import math
import random

from perfx.isolation.programs import with_delay

COMPLEX_VERTICES = 4000
"""Vertices of borough 4's boundary (the paper's had 20,004; fewer keeps tests quick)."""


def _boroughs() -> tuple[tuple[int, tuple[tuple[float, float], ...]], ...]:
    """(borough id, polygon) in the order they are tested: three simple ones, then the
    winding one, all inside the unit square."""
    winding = tuple(
        (
            0.75 + (0.2 + 0.02 * math.sin(40 * a)) * math.cos(a),
            0.75 + (0.2 + 0.02 * math.sin(40 * a)) * math.sin(a),
        )
        for a in (2 * math.pi * k / COMPLEX_VERTICES for k in range(COMPLEX_VERTICES))
    )
    return (
        (1, ((0.05, 0.05), (0.45, 0.05), (0.25, 0.45))),
        (2, ((0.55, 0.05), (0.95, 0.05), (0.95, 0.45), (0.55, 0.45))),
        (3, ((0.05, 0.55), (0.3, 0.5), (0.45, 0.7), (0.3, 0.95), (0.05, 0.9))),
        (4, winding),
    )


BOROUGHS = _boroughs()
"""Computed once at import. Not an ``lru_cache``: ``perfx isolate`` ships a program file to
the workers by value, and a cache wrapper would be pickled by a module name they can't import."""


def inside(x: float, y: float, polygon) -> bool:
    """Ray casting: does a ray from (x, y) to the right cross the boundary an odd number of times?"""
    crossings = False
    x1, y1 = polygon[-1]
    for x2, y2 in polygon:
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            crossings = not crossings
        x1, y1 = x2, y2
    return crossings


def borough(x: float, y: float) -> int:
    for number, polygon in BOROUGHS:
        if inside(x, y, polygon):
            return number
    return 0


def cost(trip_seconds: int, miles: float) -> float:
    """A metered fare: flag drop plus distance and time."""
    return 2.5 + 2.5 * miles + 0.5 * trip_seconds / 60


def borough_cost(line: str) -> tuple[int, float]:
    fields = line.split(",")
    return borough(float(fields[11]), float(fields[10])), cost(int(fields[8]), float(fields[9]))


def _sum_count(acc, value):
    return acc[0] + value, acc[1] + 1


def _merge(a, b):
    return a[0] + b[0], a[1] + b[1]


def pipeline(ctx, input_path: str, delay=None):
    return (
        ctx.textFile(input_path)
        .map(with_delay(borough_cost, delay))
        .aggregateByKey((0.0, 0), _sum_count, _merge)
        .mapValues(lambda acc: acc[0] / acc[1])
    )


def generate(path: str, records: int, seed: int = 7, in_complex: float = 0.01) -> None:
    """Trips picked up in the three simple boroughs, and a share ``in_complex`` in borough 4."""
    rng = random.Random(seed)
    centres = {1: (0.25, 0.2), 2: (0.75, 0.25), 3: (0.25, 0.75), 4: (0.75, 0.75)}
    with open(path, "w") as out:
        for number in range(records):
            area = 4 if rng.random() < in_complex else rng.randint(1, 3)
            cx, cy = centres[area]
            x, y = cx + rng.uniform(-0.08, 0.08), cy + rng.uniform(-0.08, 0.08)
            seconds, miles = rng.randint(120, 3600), round(rng.uniform(0.3, 15), 2)
            out.write(
                f"M{number:08d},H{rng.randrange(10**6):06d},VTS,1,N,2013-01-01 00:00:00,"
                f"2013-01-01 00:20:00,{rng.randint(1, 4)},{seconds},{miles},{y:.6f},{x:.6f},"
                f"{y:.6f},{x:.6f}\n"
            )
