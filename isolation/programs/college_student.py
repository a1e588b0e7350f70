"""College Student (PerfDebug section 5.5): the average student age by grade level, with
map + groupByKey.

Input: ``name,sex,age,grade,major`` per line, e.g. ``student0042,F,20,junior,Physics``.
"""

from __future__ import annotations

import random

from perfx.isolation.programs import with_delay

GRADES = ("freshman", "sophomore", "junior", "senior")
MAJORS = ("Physics", "Mathematics", "History", "Biology", "Economics", "Computer Science", "Art")


def grade_age(line: str) -> tuple[str, int]:
    fields = line.split(",")
    return fields[3], int(fields[2])


def average(ages) -> float:
    ages = list(ages)
    return sum(ages) / len(ages)


def pipeline(ctx, input_path: str, delay=None):
    return (
        ctx.textFile(input_path).map(with_delay(grade_age, delay)).groupByKey().mapValues(average)
    )


def generate(path: str, records: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    with open(path, "w") as out:
        for number in range(records):
            grade = rng.randrange(len(GRADES))
            age = 17 + grade + min(12, int(rng.expovariate(0.7)))
            out.write(
                f"student{number:07d},{rng.choice('FM')},{age},{GRADES[grade]},{rng.choice(MAJORS)}\n"
            )
