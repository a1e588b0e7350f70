"""Fixtures of the isolation tests: a Parquet lineage store in a temporary folder and small
seeded data sets of the benchmark programs."""

from __future__ import annotations

import pytest


@pytest.fixture
def store(tmp_path):
    from perfx.isolation.stores import open_store

    return open_store(str(tmp_path / "runs"))


@pytest.fixture(scope="session")
def datasets(tmp_path_factory):
    """Program name -> a small input file of that program's record format."""
    from perfx.isolation.programs import college_student, movie_ratings, taxi, weather

    folder = tmp_path_factory.mktemp("isolation-data")
    sizes = {movie_ratings: 600, college_student: 3000, weather: 3000, taxi: 1500}
    paths = {}
    for module, records in sizes.items():
        name = module.__name__.rsplit(".", 1)[1]
        paths[name] = str(folder / f"{name}.txt")
        module.generate(paths[name], records, seed=3)
    return paths
