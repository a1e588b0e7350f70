"""The report's what-ifs, timelines and charts, half of the stragglers' causes and half of
its answers, computed in forked children (``perfx.logs.background``): the page, the causes and
the answers are those computed in one process, a child's exception reaches the parent as if
raised there, a child that dies or cannot send its result leaves the work to the parent, and
Ctrl-C leaves no child's traceback."""

from __future__ import annotations

import errno
import multiprocessing
import os

import pytest

from perfx.logs import background
from perfx.logs.background import Background, in_halves
from perfx.report.build import render_report
from perfx.results import stragglers
from perfx.results.stragglers import StragglerReport
from perfx.session import open as open_session
from tests.data_files import public_log
from tests.logs.same_log import assert_same_log


@pytest.fixture
def forking(monkeypatch):
    """Forks whatever threads the test process has (xdist's, Spark's): the children here run
    numpy and pandas only."""
    monkeypatch.setattr(background, "can_fork", lambda: True)


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
    assert len(started) == 4  # the what-ifs, the timelines, the applications' and stages' charts
    assert all(process is not None and process.exitcode == 0 for process in started)
    monkeypatch.setattr(background, "can_fork", lambda: False)
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
    monkeypatch.setattr(background, "can_fork", lambda: False)
    job = Background.start(os.getpid)
    assert job._process is None and job.result() == os.getpid()


def _no_child(*args, **kwargs) -> None:
    raise OSError(errno.ENOMEM, "Cannot allocate memory")


@pytest.mark.parametrize("failing", ["Pipe", "Process.start"])
def test_a_fork_that_fails_leaves_the_work_to_the_process(failing, monkeypatch, forking):
    """No memory, process or file left for a child: a large log is read, counted and
    aggregated in the process, the log it would have been on two cores."""
    from perfx.logs.eventlog import halves, log
    from perfx.logs.loader import load_log

    path = str(public_log("groupon__sparklint/application_1472176676028_407508_1"))
    monkeypatch.setattr(halves, "MIN_BYTES", 0)
    monkeypatch.setattr(log, "AGGREGATED_APART", 0)
    forks = counted_forks(monkeypatch)
    two = load_log(path, cache=False)
    assert len(forks) == 2  # the second half's reader, the counts and aggregates
    context = type(multiprocessing.get_context("fork"))
    if failing == "Pipe":
        monkeypatch.setattr(context, "Pipe", _no_child)
    else:
        monkeypatch.setattr(multiprocessing.get_context("fork").Process, "start", _no_child)
    forks.clear()
    one = load_log(path, cache=False)
    assert len(forks) == 2
    assert_same_log(one, two)
    assert not Background.start(os.getpid).forked


def _interrupted_in_a_child(parent: int) -> str:
    if os.getpid() != parent:
        raise KeyboardInterrupt  # Ctrl-C reaches the whole process group
    return "computed here"


def test_ctrl_c_in_a_child_prints_no_traceback(forking, capfd):
    job = Background.start(_interrupted_in_a_child, os.getpid())
    assert job.result() == "computed here"
    assert job._process.exitcode == 130
    assert "Traceback" not in capfd.readouterr().err


def _pids(items: list[int]) -> dict[int, int]:
    return {item: os.getpid() for item in items}


def test_in_halves_computes_the_second_half_in_a_child(forking):
    got = in_halves(_pids, list(range(10)), least=4)
    assert list(got) == list(range(10))
    assert {got[i] for i in range(5)} == {os.getpid()}
    assert len({got[i] for i in range(5, 10)}) == 1 and got[9] != os.getpid()


def test_in_halves_leaves_fewer_than_least_items_here(forking):
    assert set(in_halves(_pids, list(range(3)), least=4).values()) == {os.getpid()}


def counted_forks(monkeypatch) -> list:
    """A list that gets an entry for every ``Background.start`` from now on."""
    forks: list = []
    real_start = Background.start.__func__
    monkeypatch.setattr(
        Background,
        "start",
        classmethod(lambda cls, *args: forks.append(1) or real_start(cls, *args)),
    )
    return forks


def test_the_stragglers_causes_are_the_same_named_in_halves(monkeypatch, forking):
    session = open_session(
        [str(public_log("groupon__sparklint/application_1472176676028_407508_1"))]
    )
    monkeypatch.setattr(stragglers, "NAMED_IN_HALVES", 10)
    forks = counted_forks(monkeypatch)
    halves = StragglerReport.of(session.straggler_analysis, session.log).named
    monkeypatch.setattr(background, "can_fork", lambda: False)
    alone = StragglerReport.of(session.straggler_analysis, session.log).named
    assert forks == [1] and halves is not None and len(halves) >= 10
    assert list(halves.items()) == list(alone.items())


@pytest.mark.slow  # four questions answered, their answers rendered twice
def test_answers_rendered_in_halves_are_those_rendered_in_one_process(monkeypatch, forking):
    """Four answers or more: half are rendered in a forked child, and the section is the one
    rendered in one process, byte for byte, in the questions' order."""
    from perfx.batch import expand, run_batch
    from perfx.report import questions

    session = open_session(
        [str(public_log("groupon__sparklint/application_1472176676028_407508_1"))]
    )
    slowest = session.log.tasks.sort_values("duration", ascending=False)["id"].astype(str)
    asked = [f"WHY TASK '{task}' SLOWER" for task in slowest[:4]]
    items = run_batch(session, expand(asked, []))
    assert all(item.ok for item in items)  # four answers with their charts, none a failure
    forks = counted_forks(monkeypatch)
    halves = questions.questions_section(items)
    monkeypatch.setattr(background, "can_fork", lambda: False)
    alone = questions.questions_section(items)
    assert forks == [1] and len(items) == questions.ANSWERS_IN_HALVES
    assert halves == alone
    html = str(halves.body)
    assert [html.index(f'id="q{n}"') for n in range(1, 5)] == sorted(
        html.index(f'id="q{n}"') for n in range(1, 5)
    )


def _forks_while_loading_logs() -> tuple[bool, int]:
    """In a forked child: may it fork, and the tasks of two logs it loads with the cache on,
    each log large enough to be split in halves and the two enough to be shared out."""
    from perfx.logs.eventlog import halves, shares
    from perfx.logs.loader import load_log

    halves.MIN_BYTES = shares.MIN_BYTES = 0
    paths = [
        "groupon__sparklint/application_1472176676028_407508_1",
        "groupon__sparklint/event_log_1",
    ]
    log = load_log([str(public_log(p)) for p in paths], cache=True)
    return background.can_fork(), len(log.tasks)


@pytest.mark.skipif(not hasattr(os, "fork") or (os.cpu_count() or 1) < 2, reason="no fork")
def test_a_forked_child_that_loads_logs_forks_nothing(tmp_path, monkeypatch):
    # multiprocessing forbids a daemon process children: the child reads the logs and
    # writes their cache entry itself, where it would have forked for each
    monkeypatch.setenv("PERFX_HOME", str(tmp_path))
    monkeypatch.setattr(background.threading, "active_count", lambda: 1)  # as a CLI process
    job = Background.start(_forks_while_loading_logs)
    assert job.forked
    can_fork, tasks = job.result()
    assert not can_fork
    assert tasks > 0


def _waits_for_a_sibling(sibling: Background) -> str:
    sibling.outcome()  # not this process's child: nothing to wait for, and its pipe left alone
    return "done"


@pytest.mark.skipif(not hasattr(os, "fork") or (os.cpu_count() or 1) < 2, reason="no fork")
def test_a_job_copied_into_another_child_is_left_to_its_parent(monkeypatch, forking):
    # a writer started by the parent (logs.cache), then a child forked while it runs
    writer = Background.start(os.getpid)
    assert Background.start(_waits_for_a_sibling, writer).result() == "done"
    assert writer.result() not in (None, os.getpid())  # the parent still hears its child
