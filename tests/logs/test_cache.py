"""The table cache (logs.cache): a log read back from it is the log read anew, and so is
every answer built on it, over every public log of the corpus; a changed or grown log is read
again; ``--no-cache`` keeps and reads nothing; racing writers leave one whole entry.

The suite runs with the cache off (tests/conftest.py): these tests turn it on explicitly."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

import perfx.explain.blocked.kept as kept_module
import perfx.logs.eventlog.log as event_logs
from perfx.cli import main
from perfx.explain.blocked.kept import code_digest
from perfx.explain.errors import ExplainError
from perfx.logs import background, cache
from perfx.logs.registry import ENTITIES
from perfx.session import open as open_session
from tests.data_files import PUBLIC, fixture_log
from tests.logs.same_log import assert_same_log

CORPUS = PUBLIC
MANIFEST = json.loads((CORPUS / "manifest.json").read_text())
SMALL = fixture_log("spark-events/local-1430917381534")


pytestmark = pytest.mark.usefixtures("home")  # tests/logs/conftest.py: a home of its own


@pytest.fixture
def reads(monkeypatch) -> list[int]:
    """Counts the event-log reads the loader makes (a cache hit makes none)."""
    counted: list[int] = []
    real = event_logs.read_event_logs

    def counting(*args, **kwargs):
        counted.append(1)
        return real(*args, **kwargs)

    # where the registry's reader takes it from when it reads (logs.formats._read_spark)
    monkeypatch.setattr(event_logs, "read_event_logs", counting)
    return counted


def _entries() -> list[Path]:
    """The entries in the cache, once the one being written (by a forked child) is in place."""
    cache.finish_writing()
    folder = cache.cache_dir()
    return (
        sorted(p for p in folder.iterdir() if not p.name.startswith(".")) if folder.exists() else []
    )


def _slowest(log) -> str | None:
    tasks = log.tasks.dropna(subset=["duration"]) if len(log.tasks) else log.tasks
    if not len(tasks):
        return None
    return str(tasks["id"].iloc[int(tasks["duration"].to_numpy().argmax())])


def _answer(ask) -> object:
    """An answer as JSON, or the one-line error perfx gives instead (both must be the same)."""
    try:
        return json.loads(json.dumps(ask().to_dict(), default=str))
    except ExplainError as err:
        return f"error: {err}"


def _answers(session, whatif: bool = True) -> dict:
    """The explanation of the slowest task, the stragglers and (with ``whatif``) the what-if,
    which reads the tables alone, not the straggler analysis."""
    answers = {"stragglers": _answer(session.stragglers)}
    if whatif:
        answers["whatif"] = _answer(session.whatif)
    if (slowest := _slowest(session.log)) is not None:
        answers["explain"] = _answer(lambda: session.explain(f"WHY TASK '{slowest}' SLOWER"))
    return answers


def _same_log(cached, fresh) -> None:
    """The same Log, and the same feature registry (which the entry keeps as JSON)."""
    assert_same_log(cached, fresh)
    for entity in ENTITIES:
        assert [asdict(s) for s in cached.registry.specs(entity)] == [
            asdict(s) for s in fresh.registry.specs(entity)
        ]


def _kept_analyses() -> int:
    """The straggler analyses kept in the entries (explain.blocked.kept)."""
    cache.finish_writing()
    return len(list(cache.cache_dir().glob(f"*/stragglers-{code_digest()}/{cache.META}")))


def _same_analysis(kept, fresh) -> None:
    pd.testing.assert_frame_equal(kept.tasks, fresh.tasks, check_exact=True)
    pd.testing.assert_frame_equal(kept.stages, fresh.stages, check_exact=True)
    assert kept.causes == fresh.causes


@pytest.mark.slow
@pytest.mark.parametrize("entry", MANIFEST, ids=[e["path"] for e in MANIFEST])
def test_answers_are_the_same_from_the_cache(entry, reads):
    path = str(CORPUS / entry["path"])
    fresh = open_session(path, cache=False)
    writing = open_session(path, cache=True)
    before = len(reads)
    cached = open_session(path, cache=True)
    if entry["kind"] == "spark":
        assert len(reads) == before, "the second cached load read the log again"
        assert _entries(), "no cache entry was kept"
    _same_log(cached.raw, fresh.raw)
    _same_log(writing.raw, fresh.raw)
    assert cached.log.skipped == fresh.log.skipped
    answers = _answers(fresh)
    assert _answers(cached) == answers  # keeps the straggler analysis in the entry
    kept = open_session(path, cache=True)
    if entry["kind"] == "spark":
        assert _kept_analyses() == 1
    _same_analysis(kept.straggler_analysis, fresh.straggler_analysis)
    # the tables are the ones ``cached`` read: only what the kept analysis feeds can differ
    assert _answers(kept, whatif=False) == {k: v for k, v in answers.items() if k != "whatif"}


def test_a_changed_or_grown_log_is_read_again(tmp_path, reads):
    log = tmp_path / "app"
    shutil.copy(SMALL, log)
    first = open_session(str(log), cache=True).raw
    open_session(str(log), cache=True)
    assert len(reads) == 1
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines) + b"not json\n")  # grown: one bad line more
    grown = open_session(str(log), cache=True).raw
    assert len(reads) == 2
    assert len(grown.skipped) == len(first.skipped) + 1
    (grown_entry,) = _entries()  # the grown log's entry replaced the first one's
    assert grown_entry.name != first.cache_key
    log.write_bytes(b"".join(lines[:-1]))  # cut back: the last event gone
    cut = open_session(str(log), cache=True).raw
    assert len(reads) == 3
    assert [e.name for e in _entries()] == [cut.cache_key]
    open_session(str(log), cache=True)
    assert len(reads) == 3  # read back from the one entry kept
    other = tmp_path / "other"
    shutil.copy(SMALL, other)
    open_session(str(other), cache=True)
    assert len(_entries()) == 2  # another log's entry replaces none


def test_a_log_replaced_by_one_of_the_same_size_and_time_is_read_again(tmp_path, reads):
    """A log written over, or another moved into its place, with its size and modification
    time set back (``touch -r``) is read again: its entry was the log it replaced."""
    log = tmp_path / "app"
    shutil.copy(SMALL, log)
    stat = log.stat()
    before = open_session(str(log), cache=True).raw
    lines = log.read_bytes().splitlines(keepends=True)
    end = next(k for k, line in enumerate(lines) if b"SparkListenerTaskEnd" in line)

    def with_host(host: bytes) -> bytes:  # the first task's host: the log's size kept
        edited = lines[end].replace(b'"Host":"localhost"', b'"Host":"' + host + b'"')
        return b"".join(lines[:end] + [edited] + lines[end + 1 :])

    for replace in ("over", "moved"):
        if replace == "over":
            log.write_bytes(with_host(b"localhosT"))
        else:
            (tmp_path / "new").write_bytes(with_host(b"localhoST"))
            os.replace(tmp_path / "new", log)
        os.utime(log, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        assert (log.stat().st_size, log.stat().st_mtime_ns) == (stat.st_size, stat.st_mtime_ns)
        after = open_session(str(log), cache=True).raw
        assert set(after.tasks["host"]) != set(before.tasks["host"]), replace
        before = after
    assert len(reads) == 3


def test_an_entry_replaces_the_one_kept_for_the_same_files_once_it_is_in_place(tmp_path):
    parts = [tmp_path / "app"]
    parts[0].write_text("a log")
    kept = cache.cache_dir() / ("1" * 32)
    kept.mkdir(parents=True)
    cache.replaces(parts, kept.name)
    cache.replaces(parts, "0" * 32)  # no such entry: a write that failed replaces nothing
    assert kept.is_dir()
    newer = cache.cache_dir() / ("2" * 32)
    newer.mkdir()
    cache.replaces(parts, newer.name)
    assert not kept.is_dir() and newer.is_dir()


@pytest.mark.slow
def test_no_cache_keeps_and_reads_nothing(monkeypatch, reads, capsys):
    monkeypatch.delenv("PERFX_CACHE")  # the command's own default: on
    for flags in (["--no-cache"], ["--no-cache"], [], []):
        with pytest.raises(SystemExit) as done:
            main(["stragglers", "--log", str(SMALL), "--format", "json", *flags])
        assert done.value.code == 0
    assert len(reads) == 3  # both --no-cache runs read the log, then one cached run
    assert len(_entries()) == 1
    outputs = capsys.readouterr().out.split("\n}\n")
    assert outputs[0] == outputs[3]


def test_racing_writers_leave_one_whole_entry(tmp_path):
    fresh = open_session(str(SMALL), cache=False).raw
    folder = tmp_path / "entry"
    cache.write_entry(folder, fresh)
    cache.write_entry(folder, fresh)  # the rename of the second fails: its copy is dropped
    assert sorted(p.name for p in tmp_path.iterdir()) == ["entry"]
    kept = cache.read_entry(folder)
    assert kept is not None
    _same_log(kept, fresh)


def test_a_table_written_in_parts_reads_back_whole(tmp_path, monkeypatch):
    fresh = open_session(str(SMALL), cache=False).raw
    monkeypatch.setattr(cache, "ROWS_AT_ONCE", 3)  # record batches of 3 rows: many parts
    cache.write_entry(tmp_path / "entry", fresh)
    assert pa.ipc.open_file(tmp_path / "entry" / "task.arrow").num_record_batches > 1
    kept = cache.read_entry(tmp_path / "entry")
    assert kept is not None
    _same_log(kept, fresh)


@pytest.mark.slow
@pytest.mark.parametrize("entry", MANIFEST, ids=[e["path"] for e in MANIFEST])
def test_a_schema_inferred_from_a_sample_is_the_one_of_the_whole_table(entry, monkeypatch):
    session = open_session(str(CORPUS / entry["path"]), cache=False)
    analysis = session.straggler_analysis
    monkeypatch.setattr(cache, "SAMPLED_ROWS", 2)  # every table of more than two rows sampled
    log = session.raw
    for frame in (log.tasks, log.stages, log.jobs, log.apps, log.executors, analysis.tasks):
        assert cache._schema(frame).equals(pa.Schema.from_pandas(frame), check_metadata=True)


@pytest.mark.parametrize(
    "column",
    [
        [None, None, "a", "b"],  # missing in the sample
        ["a", "b", None, "c"],
        ["a", "b", b"c", "d"],  # another kind further on
        ["a", "b", 3, "d"],
        [1, 2, 3.5, None],
        [True, False, None, True],
    ],
)
def test_a_sample_that_does_not_speak_for_its_column_is_not_trusted(column, monkeypatch):
    monkeypatch.setattr(cache, "SAMPLED_ROWS", 2)
    values = pd.Series(column, dtype=object)
    for frame in (
        pd.DataFrame({"x": values, "y": range(4)}),
        pd.DataFrame({"x": values}, index=[10, 11, 12, 13]),
        pd.DataFrame({"y": range(4)}, index=pd.Index(column, dtype=object)),
        pd.DataFrame({"y": range(4)}, index=pd.MultiIndex.from_arrays([range(4), values])),
    ):
        try:
            whole = pa.Schema.from_pandas(frame)
        except pa.ArrowException as err:  # nor can the table be written: no entry is kept
            with pytest.raises(type(err)):
                cache._schema(frame)
            continue
        assert cache._schema(frame).equals(whole, check_metadata=True)


def test_a_damaged_entry_is_read_again_and_replaced(reads):
    open_session(str(SMALL), cache=True)
    (entry,) = _entries()
    (entry / "task.arrow").write_bytes(b"not an Arrow file")
    fresh = open_session(str(SMALL), cache=False).raw
    again = open_session(str(SMALL), cache=True).raw
    assert len(reads) == 3
    _same_log(again, fresh)
    open_session(str(SMALL), cache=True)
    assert len(reads) == 3


def test_a_home_that_cannot_be_written_is_no_error(home, reads):
    home.parent.mkdir(exist_ok=True)
    home.write_text("a file where the cache's folder would be")
    fresh = open_session(str(SMALL), cache=False).raw
    _same_log(open_session(str(SMALL), cache=True).raw, fresh)
    assert len(reads) == 2


def test_the_straggler_analysis_is_kept_for_the_code_and_log_that_made_it(monkeypatch):
    fresh = open_session(str(SMALL), cache=False)
    assert fresh.raw.cache_key is None
    assert fresh.straggler_analysis.stragglers >= 0
    assert _kept_analyses() == 0  # a log read without the cache keeps nothing
    first = open_session(str(SMALL), cache=True)
    assert first.raw.cache_key is not None
    assert first.log.cache_key is None  # the features' log is no table of the entry
    _same_analysis(first.straggler_analysis, fresh.straggler_analysis)
    assert _kept_analyses() == 1
    computed = []
    real = kept_module.find_stragglers
    monkeypatch.setattr(
        kept_module, "find_stragglers", lambda tasks: computed.append(1) or real(tasks)
    )
    _same_analysis(
        open_session(str(SMALL), cache=True).straggler_analysis, fresh.straggler_analysis
    )
    assert computed == []  # read back
    (kept,) = cache.cache_dir().glob(f"*/stragglers-{code_digest()}")
    tables = list(kept.glob("*.arrow"))
    assert tables
    for table in tables:
        table.write_bytes(b"not an Arrow file")
    _same_analysis(
        open_session(str(SMALL), cache=True).straggler_analysis, fresh.straggler_analysis
    )
    assert computed == [1]  # damaged: computed again, and kept again
    _same_analysis(
        open_session(str(SMALL), cache=True).straggler_analysis, fresh.straggler_analysis
    )
    assert computed == [1]
    monkeypatch.setattr(kept_module, "code_digest", lambda: "other-code")
    _same_analysis(
        open_session(str(SMALL), cache=True).straggler_analysis, fresh.straggler_analysis
    )
    assert computed == [1, 1]  # changed code: computed again, and kept under its own name
    assert (kept.parent / "stragglers-other-code" / cache.META).is_file()


def _in_a_process(script: str, home: Path) -> str:
    """What ``script`` prints, run on the small log in a process of its own (one with no
    thread: it forks its cache writer, logs.background.can_fork) with ``home``; it must
    exit 0 and say nothing on stderr."""
    done = subprocess.run(
        [sys.executable, "-c", script, str(SMALL)],
        capture_output=True,
        text=True,
        env=dict(os.environ, PERFX_HOME=str(home)),
    )
    assert (done.returncode, done.stderr) == (0, "")
    return done.stdout


WRITES_IN_A_CHILD = """
import sys
from perfx.logs import cache
from perfx.logs.loader import load_log
log = load_log(sys.argv[1], cache=True)
print(log.cache_key in cache._writing)
"""


def test_a_process_ends_with_the_entry_its_child_was_writing(home):
    # a process of its own, with no thread: it forks the writer (logs.background.can_fork);
    # multiprocessing's own exit handler would kill the (daemon) child before it is done
    # still being written when load_log returned
    assert _in_a_process(WRITES_IN_A_CHILD, home).split() == ["True"]
    (entry,) = _entries()
    assert sorted(p.name for p in entry.iterdir()) == sorted(
        [cache.META, *(f"{t}.arrow" for t in cache.TABLES)]
    )
    kept = cache.read_entry(entry)
    assert kept is not None
    _same_log(kept, open_session(str(SMALL), cache=False).raw)


DECODER = ("msgspec", *(f"perfx.logs.eventlog.{m}" for m in ("build", "halves", "fastend", "log")))
"""The event-log decoder's modules: msgspec's structs, the two-core reader, the builders."""
IMPORTED_DECODER = f"""
import sys
from perfx.logs.loader import load_log
assert len(load_log(sys.argv[1], cache=True).tasks)
print(*sorted(m for m in {DECODER!r} if m in sys.modules))
"""


def test_a_cache_hit_imports_no_event_log_decoder(home):
    """Tables read back from an entry need nothing of the event-log decoder: 15-20 ms of
    every cached command."""
    assert _in_a_process(IMPORTED_DECODER, home).split() == sorted(DECODER)  # the miss read
    assert _entries()
    assert _in_a_process(IMPORTED_DECODER, home).split() == []


ANALYSED_WHILE_WRITING = """
import sys
from perfx.logs import cache
from perfx.session import open as open_session
session = open_session(sys.argv[1], cache=True)
session.straggler_analysis
# the analysis is done, its entry maybe not yet: the command answers without waiting for it
print(session.raw.cache_key in cache._writing, len(cache._kept_after_writing))
"""


def test_the_analysis_is_kept_once_its_entry_is_in_place_without_waiting_for_it(
    home, reads, monkeypatch
):
    written = []
    for _ in range(3):  # the writer may be done before the analysis is: then it is kept at once
        shutil.rmtree(home, ignore_errors=True)
        written.append(_in_a_process(ANALYSED_WHILE_WRITING, home).split())
        assert _kept_analyses() == 1  # kept at exit, once the entry was in place
    assert ["True", "1"] in written, written
    computed = []
    real = kept_module.find_stragglers
    monkeypatch.setattr(
        kept_module, "find_stragglers", lambda tasks: computed.append(1) or real(tasks)
    )
    _same_analysis(
        open_session(str(SMALL), cache=True).straggler_analysis,
        open_session(str(SMALL), cache=False).straggler_analysis,
    )
    assert computed == [1] and reads == [1]  # the cache's both read back; the fresh read's not


def test_an_analysis_waiting_for_its_entry_is_kept_by_its_own_process_only(monkeypatch):
    session = open_session(str(SMALL), cache=True)
    assert session.straggler_analysis.stragglers >= 0 and _kept_analyses() == 1
    (kept,) = cache.cache_dir().glob(f"*/stragglers-{code_digest()}")
    shutil.rmtree(kept)
    for process in (os.getpid() + 1, os.getpid()):  # a forked child's copy, then its own
        waiting = [(process, session.raw.cache_key, kept.name, {}, {})]
        monkeypatch.setattr(cache, "_kept_after_writing", waiting)
        cache.finish_writing()
        assert kept.is_dir() == (process == os.getpid())


KILLED_WRITER = """
import os, signal, sys
from perfx.logs import cache
from perfx.logs.loader import load_log
cache.write_entry = lambda *entry: os.kill(os.getpid(), signal.SIGKILL)
load_log(sys.argv[1], cache=True)
"""


def test_a_writer_killed_leaves_no_entry_and_the_process_does_not_write_it(home, reads):
    # a child killed (Ctrl-C, out of memory) leaves the log to be read again: the process,
    # on its way out, does not write the entry itself
    _in_a_process(KILLED_WRITER, home)
    assert _entries() == []
    open_session(str(SMALL), cache=True)
    assert len(reads) == 1


def test_an_entry_is_written_in_the_process_where_it_cannot_fork(monkeypatch, reads):
    monkeypatch.setattr(background, "can_fork", lambda: False)
    fresh = open_session(str(SMALL), cache=False).raw
    written = open_session(str(SMALL), cache=True).raw
    assert not cache._writing
    (entry,) = [p for p in cache.cache_dir().iterdir() if not p.name.startswith(".")]  # no wait
    _same_log(cache.read_entry(entry), fresh)
    _same_log(written, fresh)
    open_session(str(SMALL), cache=True)
    assert len(reads) == 2


KILLED_MID_WRITE = """
import os, signal, sys
from perfx.logs import cache
from perfx.logs.loader import load_log
def killed(*table):
    os.kill(os.getpid(), signal.SIGKILL)  # its temporary folder made, its first table not
cache._write_table = killed
load_log(sys.argv[1], cache=True)
"""


def _temporaries(folder: Path) -> list[Path]:
    cache.finish_writing()  # a forked writer removes them before it writes
    return sorted(p for p in folder.iterdir() if cache.TEMPORARY.fullmatch(p.name))


def _untouched_for(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_what_a_writer_killed_mid_write_leaves_a_later_write_removes(home, reads):
    _in_a_process(KILLED_MID_WRITE, home)
    (left,) = _temporaries(cache.cache_dir())
    assert _entries() == []
    # a writer gone a moment ago may be another machine's, still writing: kept
    open_session(str(SMALL), cache=True)
    assert _temporaries(cache.cache_dir()) == [left]
    (entry,) = _entries()
    shutil.rmtree(entry)
    _untouched_for(left, cache.ABANDONED_SECONDS + 1)
    markers = cache.cache_dir() / cache.LATEST
    marker = markers / f".{'d' * 32}-{2**22 + 1}-{'e' * 32}"  # a marker's writer killed
    marker.write_text("key")
    _untouched_for(marker, cache.ABANDONED_SECONDS + 1)
    open_session(str(SMALL), cache=True)
    assert _temporaries(cache.cache_dir()) == _temporaries(markers) == []
    assert len(_entries()) == 1 and len(reads) == 2


def test_a_temporary_of_a_running_writer_is_kept_until_it_is_forgotten(tmp_path):
    running = tmp_path / f".entry-{os.getpid()}-{'a' * 32}"
    gone = tmp_path / f".entry-{2**22 + 1}-{'b' * 32}"  # above Linux's largest pid
    other = tmp_path / ".entry-not-a-temporary"
    for path in (running, gone, other):
        path.mkdir()
        _untouched_for(path, cache.ABANDONED_SECONDS + 1)
    cache.remove_abandoned(tmp_path)
    assert sorted(tmp_path.iterdir()) == sorted([running, other])
    _untouched_for(running, cache.FORGOTTEN_SECONDS + 1)
    marker = tmp_path / f".marker-{2**22 + 1}-{'c' * 32}"  # a file: a marker being written
    marker.write_text("key")
    _untouched_for(marker, cache.ABANDONED_SECONDS + 1)
    cache.remove_abandoned(tmp_path)
    assert sorted(tmp_path.iterdir()) == [other]
