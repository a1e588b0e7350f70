"""The report's what-ifs, timelines and charts computed in forked children
(``perfx.report.background``): the page is byte for byte the page computed in one process,
a child's exception reaches the parent as if raised there, a child that dies or cannot send
its result leaves the work to the parent, and Ctrl-C leaves no child's traceback."""

from __future__ import annotations

import os

import pytest

from perfx.report import background
from perfx.report.background import Background
from perfx.report.build import render_report
from perfx.session import open as open_session
from tests.data_files import public_log


@pytest.fixture
def forking(monkeypatch):
    """Forks whatever threads the test process has (xdist's, Spark's): the children here run
    numpy and pandas only."""
    monkeypatch.setattr(background, "_can_fork", lambda: True)


@pytest.mark.slow  # a report rendered twice
def test_the_page_is_the_same_with_the_what_ifs_in_a_child(monkeypatch, forking):
    session = open_session(
        [str(public_log("groupon__sparklint/application_1472176676028_407508_1"))]
    )
    started = []
    real_start = Background.start.__func__

    def start(cls, function, *args):
        job = real_start(cls, function, *args)
        started.append(job._process)
        return job

    monkeypatch.setattr(Background, "start", classmethod(start))
    forked = render_report(session).html
    assert len(started) == 3  # the what-ifs, the timelines, the applications' charts
    assert all(process is not None and process.exitcode == 0 for process in started)
    monkeypatch.setattr(background, "_can_fork", lambda: False)
    assert render_report(session).html == forked


def _fails() -> None:
    raise ValueError("no replay: bad times")


def test_a_childs_exception_is_raised_in_the_parent(forking):
    with pytest.raises(ValueError, match="no replay: bad times"):
        Background.start(_fails).result()


def _dies_in_a_child(parent: int) -> str:
    if os.getpid() != parent:
        os._exit(3)
    return "computed here"


def test_a_child_that_dies_leaves_the_work_to_the_parent(forking):
    job = Background.start(_dies_in_a_child, os.getpid())
    assert job.result() == "computed here"
    assert job._process.exitcode == 3


def _unpicklable(parent: int):
    return (lambda: None) if os.getpid() != parent else "computed here"


def test_a_result_that_does_not_pickle_is_computed_in_the_parent(forking):
    assert Background.start(_unpicklable, os.getpid()).result() == "computed here"


def test_without_fork_the_work_is_done_in_the_process(monkeypatch):
    monkeypatch.setattr(background, "_can_fork", lambda: False)
    job = Background.start(os.getpid)
    assert job._process is None and job.result() == os.getpid()


def _interrupted_in_a_child(parent: int) -> str:
    if os.getpid() != parent:
        raise KeyboardInterrupt  # Ctrl-C reaches the whole process group
    return "computed here"


def test_ctrl_c_in_a_child_prints_no_traceback(forking, capfd):
    job = Background.start(_interrupted_in_a_child, os.getpid())
    assert job.result() == "computed here"
    assert job._process.exitcode == 130
    assert "Traceback" not in capfd.readouterr().err
