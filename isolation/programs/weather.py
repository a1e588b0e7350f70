"""Weather Analysis (PerfDebug sections 5.3 and 5.5): for each (state, month/day) and each
(state, year), the spread between the largest and the smallest snowfall reading, with
flatMap + groupByKey + map.

Input: ``zipcode,month/day/year,snowfall`` per line, the snowfall in feet or millimetres,
e.g. ``90210,12/24/2005,3.5ft`` or ``10001,1/2/1999,41mm``.
"""

from __future__ import annotations

import random

from perfx.isolation.programs import with_delay

MM_PER_FOOT = 304.8


def zip_to_state(zipcode: str) -> int:
    """A stand-in for the paper's zipCodeToState: the first two digits pick one of 50 states."""
    return int(zipcode[:2]) % 50


def readings(line: str) -> list[tuple[tuple[int, str], float]]:
    zipcode, date, snow = line.split(",")
    state = zip_to_state(zipcode)
    split = date.rindex("/")
    millimetres = float(snow[:-2]) * (MM_PER_FOOT if snow.endswith("ft") else 1.0)
    return [((state, date[:split]), millimetres), ((state, date[split + 1 :]), millimetres)]


def spread(key_values) -> tuple:
    key, values = key_values
    values = list(values)
    return key, max(values) - min(values)


def pipeline(ctx, input_path: str, delay=None):
    return ctx.textFile(input_path).flatMap(with_delay(readings, delay)).groupByKey().map(spread)


def generate(path: str, records: int, seed: int = 7, zipcodes: int = 2000) -> None:
    rng = random.Random(seed)
    zips = [f"{rng.randrange(10000, 99999)}" for _ in range(zipcodes)]
    with open(path, "w") as out:
        for _ in range(records):
            date = f"{rng.randint(1, 12)}/{rng.randint(1, 28)}/{rng.randint(1980, 2015)}"
            if rng.random() < 0.5:
                snow = f"{rng.expovariate(2):.2f}ft"
            else:
                snow = f"{rng.expovariate(1 / 150):.0f}mm"
            out.write(f"{rng.choice(zips)},{date},{snow}\n")
