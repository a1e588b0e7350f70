"""Click options shared by the commands, defined once so that every command spells, documents
and defaults them alike, and helpers that turn them into a Session and print its results."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import click

from perfx.explain.options import LEAST_SAMPLE, METHOD_NAMES, ExplainOptions

F = TypeVar("F", bound=Callable[..., Any])


def _compose(*decorators: Callable[[F], F]) -> Callable[[F], F]:
    def apply(f: F) -> F:
        for decorator in reversed(decorators):
            f = decorator(f)
        return f

    return apply


class LogSource(click.ParamType):
    """A local log, history, folder or feature store, which must exist; or the URI of a
    feature store (``s3://bucket/store``) or of Spark's REST API (``http://host:18080``),
    whose scheme is checked now and the rest when it is read. ``must_exist=False``: a local
    path that does not exist is left for the command to say so (``perfx logs``, exit 1)."""

    name = "path"

    def __init__(self, must_exist: bool = True) -> None:
        self.must_exist = must_exist

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from perfx.logs.store.fs import is_uri, unknown_scheme

        text = str(value)
        if is_uri(text):
            problem = unknown_scheme(text)
            if problem:
                self.fail(problem, param, ctx)
            return text
        return str(click.Path(exists=self.must_exist).convert(value, param, ctx))


class OutputPath(click.ParamType):
    """Where a command writes a file (``folder=False``) or a folder it creates: checked when
    the command line is read, before any log is loaded, so that a path that cannot be written
    fails at once (exit 2) rather than after the work. A file's folder must exist and be
    writable and the file must not be a folder; a folder's nearest existing ancestor must be a
    writable folder (the command creates the rest). A URI is checked when it is written."""

    name = "path"

    def __init__(self, folder: bool = False, path_type: type = str) -> None:
        self.folder = folder
        self.path_type = path_type

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        import os
        from pathlib import Path

        from perfx.logs.store.fs import is_uri

        if is_uri(str(value)):
            return LogSource(must_exist=False).convert(value, param, ctx)
        path = Path(value)
        if self.folder:
            if path.exists() and not path.is_dir():
                self.fail(f"{value} is a file, not a folder", param, ctx)
            parent = next(p for p in (path, *path.absolute().parents) if p.exists())
        else:
            if path.is_dir():
                self.fail(f"{value} is a folder; give a file name", param, ctx)
            parent = path.absolute().parent
            if not parent.exists():
                self.fail(f"folder {parent} does not exist", param, ctx)
        if not parent.is_dir():
            self.fail(f"{parent} is not a folder", param, ctx)
        if not os.access(parent, os.W_OK | os.X_OK):
            self.fail(f"folder {parent} is not writable", param, ctx)
        return self.path_type(value)


REST_SETTINGS = "perfx.rest"
"""Where ``--app``, ``--header`` and ``--no-cache`` keep their values in the click context's
``meta``: every command that reads logs takes them, and only ``open_session`` (and the REPL's
load) reads them, as ``perfx.open``'s keywords."""


def _keep(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    settings = ctx.meta.setdefault(REST_SETTINGS, {})
    if param.name == "no_cache":
        if value:
            settings["cache"] = False
        return value
    if param.name == "headers":
        from perfx.logs.rest.client import parse_header

        try:
            value = dict(parse_header(text) for text in value)
        except ValueError as err:
            raise click.BadParameter(str(err), ctx=ctx, param=param) from None
    settings[param.name] = value
    return value


rest_options = _compose(
    click.option(
        "--app",
        default=None,
        expose_value=False,
        callback=_keep,
        help="With an http(s):// --log (Spark's REST API): the application, by id or name "
        "(default: the latest started).",
    ),
    click.option(
        "--header",
        "headers",
        multiple=True,
        expose_value=False,
        callback=_keep,
        metavar="'NAME: VALUE'",
        help="An HTTP header for the REST API (repeatable), e.g. a proxy's 'Authorization: Bearer ...'.",
    ),
    click.option(
        "--no-cache",
        is_flag=True,
        expose_value=False,
        callback=_keep,
        help="Read the event logs anew instead of the tables kept from the last read "
        "($PERFX_HOME/cache), and keep none.",
    ),
)
"""Options of reading a log: of an ``http(s)://`` log, which application and the headers
to reach it; of event logs, whether to use the table cache."""


def rest_settings() -> dict[str, Any]:
    """The ``--app``, ``--header`` and ``--no-cache`` of the running command (none outside
    one), as ``perfx.open``'s keywords."""
    ctx = click.get_current_context(silent=True)
    return dict(ctx.meta.get(REST_SETTINGS, {})) if ctx is not None else {}


def log_option(
    help: str = "Event log, history file, folder, feature store or Spark REST API "
    "(path, URI or http(s)://host:port; repeatable).",
    required: bool = True,
) -> Callable[[F], F]:
    return _compose(
        click.option(
            "--log", "logs", multiple=True, required=required, type=LogSource(), help=help
        ),
        rest_options,
    )


def number_option(
    flag: str,
    default: float,
    help: str,
    *,
    least: float | None = None,
    kind: type = int,
    dest: str | None = None,
) -> Callable[[F], F]:
    """A number option (``kind``: int or float) shown with its default; ``least``: its lower
    bound, below which the value is a usage error; ``dest``: the parameter's name where it is
    not the flag's."""
    checked: Any = kind
    if least is not None:
        checked = click.IntRange(min=int(least)) if kind is int else click.FloatRange(min=least)
    return click.option(
        *((flag, dest) if dest else (flag,)),
        type=checked,
        default=default,
        show_default=True,
        help=help,
        callback=_finite if kind is float else None,
    )


def _finite(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """A float option's value, which must be a number: nan and inf passed every bound (a
    comparison with nan is false) and ``skew --factor nan`` answered (a probe of the CLI)."""
    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a finite number", ctx=ctx, param=param)
    return value


def choice_option(
    flag: str,
    choices: Sequence[str],
    default: str,
    help: str | None = None,
    dest: str | None = None,
) -> Callable[[F], F]:
    """An option taking one of ``choices`` (a typo is a usage error), shown with its default."""
    return click.option(
        *((flag, dest) if dest else (flag,)),
        type=click.Choice(list(choices)),
        default=default,
        show_default=True,
        help=help,
    )


def out_option(help: str, folder: bool = False) -> Callable[[F], F]:
    """``--out``, required: the file (``folder``: the folder) a command writes, checked before
    any work (``OutputPath``)."""
    return click.option("--out", required=True, type=OutputPath(folder=folder), help=help)


format_option = choice_option("--format", ["text", "json"], "text", dest="fmt")

host_metrics_option = click.option(
    "--host-metrics",
    type=click.Path(exists=True, dir_okay=False),
    help="Host metrics CSV/Parquet (host, timestamp, metrics...) to join onto tasks and jobs.",
)

program_options = _compose(
    click.argument("program", type=click.Path(exists=True, dir_okay=False)),
    click.argument("script_args", nargs=-1, type=click.UNPROCESSED),
    click.option(
        "--input",
        "input_path",
        default=None,
        help="A pipeline(ctx, input_path) program's input (file, folder or glob); without "
        "it PROGRAM.py runs as a script: perfx isolate SCRIPT.py -- ARGS.",
    ),
    click.option(
        "--out",
        type=click.Path(dir_okay=False),
        default=None,
        help="Write perfx's answer to this file (the script's own output stays its own).",
    ),
    click.option(
        "--split-batches",
        is_flag=True,
        help="Tell apart the rows of a script's costliest pandas UDF batches: after the "
        "script, perfx calls the function again on each of their rows alone (which repeats "
        "whatever else it does, a file or table it writes).",
    ),
)
"""A PySpark program and its input: a script run as ``python SCRIPT.py ARGS`` would
(arguments after ``--``), or a ``pipeline(ctx, input_path)`` program with ``--input``; for a
script, whether its pandas UDF batches are split into rows (``udf.UdfRecorder``)."""

master_option = click.option(
    "--master",
    default=None,
    help="Spark master URL [default: a script's own master, else Spark's default "
    "(local[*]); a pipeline program's local[2]; for perfx verify, the traced run's].",
)

STORE_HELP = (
    "Lineage store: a path or URI (Parquet; default $PERFX_HOME/runs) or ignite://host:port."
)

store_option = click.option("--store", default=None, help=STORE_HELP)

run_options = _compose(
    click.option(
        "--run",
        default=None,
        help="A traced run (perfx isolate, perfx runs): answers get the culprit records "
        "inside their task's partition.",
    ),
    store_option,
)


def queries_options(queries_help: str) -> Callable[[F], F]:
    """``--queries FILE`` (``queries_help`` says what they are asked instead of) and
    ``--pairs CSV`` binding their ``?`` placeholders, read into the command's ``questions``
    (``query_file``; None without --queries) before any log is: a file with no query, or
    --pairs without --queries, is a usage error at once."""

    def decorate(command: F) -> F:
        @functools.wraps(command)
        def with_questions(
            *args: Any, queries: str | None, pairs: str | None, **kwargs: Any
        ) -> Any:
            if pairs and not queries:
                raise click.UsageError(
                    "--pairs binds the placeholders of --queries: give --queries too"
                )
            questions = query_file(queries, pairs) if queries else None
            return command(*args, questions=questions, **kwargs)

        return _compose(
            click.option(
                "--queries", type=click.Path(exists=True, dir_okay=False), help=queries_help
            ),
            click.option(
                "--pairs",
                type=click.Path(exists=True, dir_okay=False),
                help="CSV of ids bound to the '?' placeholders of --queries, one row per pair.",
            ),
        )(cast(F, with_questions))

    return decorate


def query_file(queries: str, pairs: str | None) -> list[Any]:
    """The questions of a ``--queries`` file, each query once per row of ``--pairs`` where
    it has ``?`` placeholders (perfx.batch.BatchItem; one that does not parse is a failed
    item, placed at its line and column); a file with no query is a usage error."""
    from pathlib import Path

    from perfx.batch import expand, read_pairs, read_queries

    source = text_of(Path(queries), "--queries")
    texts = read_queries(source)
    if not texts:
        raise click.UsageError(f"{queries} holds no query")
    rows = read_pairs(text_of(Path(pairs), "--pairs")) if pairs else None
    return expand(texts, rows, source=source)


def text_of(path: Any, flag: str) -> str:
    """A file a flag names, as UTF-8 text (a byte order mark dropped): read in the machine's
    encoding, a Latin-1 byte ended the command in an internal error, and a mark made the
    first query "unexpected character U+FEFF" (a probe of the CLI)."""
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as err:
        from perfx.logs.errors import not_utf8

        raise click.BadParameter(
            f"{path} is not UTF-8 text ({not_utf8(err)})", param_hint=f"'{flag}'"
        ) from None
    except OSError as err:
        raise click.BadParameter(f"{path}: {err.strerror}", param_hint=f"'{flag}'") from None


def page_options(out_help: str) -> Callable[[F], F]:
    """What a command writing an HTML page of answers takes after its questions: the page's
    ``--out`` (``out_help``), the explanation flags, ``--format``, and the traced run whose
    culprit records the answers name."""
    return _compose(out_option(out_help), explain_options(), format_option, run_options)


EXPLAIN_FLAGS: dict[str, Any] = {
    "width": click.IntRange(min=1),
    "despite_width": click.IntRange(min=0),
    "sample": click.IntRange(min=LEAST_SAMPLE),
    "seed": int,
    "method": click.Choice(METHOD_NAMES),
    "level": click.IntRange(1, 3),
}
"""The explanation options a command may offer as flags, with the flag's type (the default
and help text are ``ExplainOptions``')."""


def explain_options(*names: str) -> Callable[[F], F]:
    """The flags of the explanation options ``names`` (default: width, sample, seed), given to
    the command as one checked ``options`` value (explain.options.ExplainOptions): an invalid
    value is a usage error, before any log is read."""
    names = names or ("width", "sample", "seed")

    def decorate(command: F) -> F:
        @functools.wraps(command)
        def with_options(*args: Any, **kwargs: Any) -> Any:
            chosen = {name: kwargs.pop(name) for name in names}
            return command(*args, options=ExplainOptions.of(**chosen), **kwargs)

        for name in reversed(names):
            default = ExplainOptions.default(name)
            with_options = click.option(
                "--" + name.replace("_", "-"),
                name,
                type=EXPLAIN_FLAGS[name],
                default=default,
                show_default=default is not None,
                help=ExplainOptions.help(name),
            )(with_options)
        return cast(F, with_options)

    return decorate


def open_session(
    logs: tuple[str, ...],
    host_metrics: str | None = None,
    progress: bool = False,
    questions: Sequence[tuple[Any, Sequence[object]]] = (),
):
    """The Session every command answers from (``progress``: a bar while a large log loads;
    ``questions``: queries with their bound values, what a feature store is read for); what
    loading it freed is handed back to the system (perfx.allocator)."""
    from perfx.allocator import hand_back_free_pages
    from perfx.session import open

    session = open(
        list(logs),
        host_metrics=host_metrics,
        progress=progress,
        questions=questions,
        **rest_settings(),
    )
    hand_back_free_pages()
    return session


def log_note(session: Any) -> str:
    """The one line saying what the reader skipped in the session's log and which of its
    files end before their job did ('' if nothing). Read from the raw log: the straggler
    features of ``session.log`` add nothing to it, and a question that needs none would
    otherwise pay for every stage's straggler analysis (a third of a second on 150,000
    tasks) to print it."""
    from perfx.logs.model import log_notes

    return log_notes(session.raw)


all_option = click.option(
    "--all",
    "show_all",
    is_flag=True,
    help="Every row of the tables (default: the 40 with the most time at stake).",
)
"""Answer first (issue 24): tables show the rows with the most at stake unless --all."""


def emit(
    result: Any, fmt: str, *, sort_keys: bool = False, note: str = "", show_all: bool = False
) -> None:
    """Print a result: its stable JSON, or its rich rendering (text from logs as text), every
    table row with ``show_all``. ``note`` (``log_note``: lines of the log were skipped)
    follows the text, or is the JSON's ``log_note``: an answer from part of a log says so.
    Text taller than the terminal goes through rich's pager on a terminal, never when piped."""
    if fmt == "json":
        payload = result.to_dict()
        if note:
            payload = {**payload, "log_note": note}
        click.echo(json.dumps(payload, indent=2, sort_keys=sort_keys))
        return
    import dataclasses

    from perfx.terminal import page, with_note

    if show_all and "limit" in getattr(result, "__dataclass_fields__", {}):
        result = dataclasses.replace(result, limit=None)
    page(with_note(result, note))
