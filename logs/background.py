"""Work computed in a child process while the parent does the rest.

The second half of a large event log's lines is read by a forked child while the reader
reads the first (logs.eventlog.halves), its stage, job and app tables are counted and
aggregated by one while the reader derives the task features (logs.eventlog.log), and the
table cache's entry of a log just read is written by one while the command answers from its
tables (logs.cache).

The report's what-if replays (one Python event loop per scenario over every task attempt),
its naming of every straggler's cause, its timelines (matplotlib) and its questions take
seconds each on a large log or folder and share nothing, so on two cores they can run at
once: the what-ifs, the timelines, the applications' charts and the stages' charts are
each computed by a forked child, with the loaded log already in its memory (nothing is
pickled on the way in), which sends back only its result (a few small tables, HTML).
Naming the stragglers' causes, one task at a time, and rendering the answers to four
questions or more are split in two halves the same way (``in_halves``).

Forking is done only where it is safe and worth it: on a system that forks, with more than
one core, and from a process with no other thread (a notebook with a live SparkContext has
py4j's; a forked copy of a thread's held lock never opens). Otherwise, when the fork fails
(no memory or process left for a child), and when the child could not send its result (it
died, or the result does not pickle), the part is computed in the process, as it always
was: the page is the same either way.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")


class Background(Generic[T]):
    """``function(*args)``, started in a forked child (``start``); ``result`` waits for it,
    re-raises its exception, or computes it here when the child gave nothing back."""

    def __init__(self, function: Callable[..., T], args: tuple[Any, ...]):
        self.function, self.args = function, args
        self._process: Any = None
        self._receive: Any = None
        self._parent = 0

    @classmethod
    def start(cls, function: Callable[..., T], *args: Any) -> Background[T]:
        job = cls(function, args)
        if can_fork():
            context = multiprocessing.get_context("fork")
            try:
                receive, send = context.Pipe(duplex=False)
            except OSError:  # no file descriptors left: computed here
                return job
            process = context.Process(target=_child, args=(send, function, args), daemon=True)
            try:
                process.start()
            except OSError:  # no memory or no process left for a child: computed here
                receive.close()
                return job
            finally:
                send.close()  # the child's end: the parent's recv sees EOF if the child dies
            job._process, job._receive, job._parent = process, receive, os.getpid()
        return job

    @property
    def forked(self) -> bool:
        """Is it computed by a forked child (else ``result`` computes it here)?"""
        return self._process is not None

    def result(self) -> T:
        if self._process is None:
            return self.function(*self.args)
        kind, value = self._received()
        if kind == "ok":
            return value
        return self.function(*self.args)

    def outcome(self) -> T | None:
        """The child's result, or None where it gave none, nothing being computed here: for
        work whose arguments have changed here since the fork, or work done for its effect
        (a file written) that a killed child (Ctrl-C, out of memory) left undone."""
        if self._process is None:
            return self.function(*self.args)
        kind, value = self._received()
        return value if kind == "ok" else None

    def _received(self) -> tuple[str, Any]:
        """The child's ("ok", result) or ("lost", None), once it has ended; its exception is
        re-raised. A copy of this job in a process forked since (a child of the parent's
        too) has no child to hear from: it is lost there, and its pipe left to the parent."""
        if os.getpid() != self._parent:
            return "lost", None
        try:
            kind, value = self._receive.recv()
        except (EOFError, OSError):
            kind, value = "lost", None
        finally:
            self._receive.close()
            self._process.join()
        if kind == "error":
            raise value
        return kind, value


def in_halves(function: Callable[[list[K]], dict[K, V]], items: list[K], least: int) -> dict[K, V]:
    """``function(items)`` for a function that maps each item on its own: the second half
    of ``items`` computed by a forked child (``Background``) while this process computes the
    first, where there are at least ``least`` items (fewer are not worth a fork). The first
    item is computed before the fork, so that what it loads once (a lazy import, a table's
    index) is loaded once, and the child inherits it. The dict is the one computed in one
    process, in the same order."""
    if len(items) < least or not can_fork():
        return function(items)
    half = len(items) // 2
    done = function(items[:1])
    rest = Background.start(function, items[half:])
    done.update(function(items[1:half]))
    done.update(rest.result())
    return done


def can_fork() -> bool:
    """Can work be forked here: a system that forks, more than one core, no other thread, and
    not itself a forked child (multiprocessing forbids a daemon process children: a child
    that loads a log reads it, and writes its cache entry, in one process)."""
    return (
        hasattr(os, "fork")
        and (os.cpu_count() or 1) > 1
        and threading.active_count() == 1
        and not multiprocessing.current_process().daemon
    )


def _child(send: Any, function: Callable[..., Any], args: tuple[Any, ...]) -> None:
    """Runs in the child: sends ("ok", result) or ("error", exception), ("lost", None) when
    neither pickles, nothing when the parent is gone. Ctrl-C reaches the whole process group:
    the parent says so, once, and the child leaves without a traceback."""
    try:
        try:
            outcome: tuple[str, Any] = ("ok", function(*args))
        except Exception as err:  # re-raised in the parent, as if raised there
            outcome = ("error", err)
        try:
            send.send(outcome)
        except Exception:  # it does not pickle, or the parent is gone (killed): nothing to say
            with contextlib.suppress(Exception):
                send.send(("lost", None))
        send.close()
    except KeyboardInterrupt:
        os._exit(130)
