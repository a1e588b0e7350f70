"""The ``perfx`` command line: a thin click group over the library.

Each command lives in its own module under ``perfx/commands`` and is imported only when it
is used (or listed by ``--help``), so that a quick ``perfx parse`` never starts pandas or a
JVM. Errors that are the user's to fix are printed as one readable message on stderr with a
non-zero exit code, never as a traceback.
"""

from __future__ import annotations

import gc
import os
import pkgutil
import sys
import warnings

import click

from .allocator import return_large_blocks
from .user_errors import user_error_types

COMMANDS: dict[str, str] = {
    "stragglers": "perfx.commands.stragglers:stragglers",
    "whatif": "perfx.commands.whatif:whatif",
    "batch": "perfx.commands.batch:batch",
    "parse": "perfx.commands.parse:parse",
    "logs": "perfx.commands.logs:logs",
    "features": "perfx.commands.features:features",
    "repl": "perfx.commands.repl:repl",
    "explain": "perfx.commands.explain:explain",
    "fixtures": "perfx.commands.fixtures:fixtures",
    "evaluate": "perfx.commands.evaluate:evaluate",
    "isolate": "perfx.commands.isolate:isolate",
    "runs": "perfx.commands.runs:runs",
    "culprits": "perfx.commands.culprits:culprits",
    "skew": "perfx.commands.skew:skew",
    "why": "perfx.commands.why:why",
    "verify": "perfx.commands.verify:verify",
    "report": "perfx.commands.report:report_command",
    "ingest": "perfx.commands.ingest:ingest",
    "mcp": "perfx.commands.mcp:mcp",
}
"""Command name -> ``module:attribute`` of its click command."""


class LazyGroup(click.Group):
    """A click group that imports a command's module only when the command is needed."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        return pkgutil.resolve_name(target)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="perfx")
def cli() -> None:
    """Explain the performance of Spark and MapReduce jobs.

    Ask why a task or job was slower (or faster, or no faster) than another in PXQL, find
    the input records that cost the time, and see where the time went.
    """


def usage_line(err: click.UsageError) -> str:
    """A usage error as one line with its hint: what is wrong, then where the help is (click's
    own takes three lines: the usage, a "Try" line and the error)."""
    command = err.ctx.command_path if err.ctx is not None else "perfx"
    from perfx.explain.wording import printable

    message = printable(" ".join(err.format_message().split()))
    return f"{command}: {message} (see '{command} --help')"


def main(argv: list[str] | None = None) -> None:
    """Entry point of the console script: runs the group and turns errors into exit codes."""
    return_large_blocks()
    if not os.environ.get("PERFX_DEBUG"):
        # numpy's overflow and invalid-value warnings over a log's impossible values (a GC
        # time of 1e300) printed perfx's source lines to the user, and its "Mean of empty
        # slice" over host metrics no row of which matched, numpy's; the answer says what is
        # wrong with the log (logs.model.implausible_note)
        warnings.filterwarnings(
            "ignore", category=RuntimeWarning, module=r"(perfx|numpy|pandas)(\.|$)"
        )
    try:
        cli.main(args=argv, prog_name="perfx", standalone_mode=False)
    except click.UsageError as err:
        click.echo(usage_line(err), err=True)
        sys.exit(err.exit_code)
    except click.ClickException as err:
        err.show()
        sys.exit(err.exit_code)
    except click.exceptions.Exit as err:
        sys.exit(err.exit_code)
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("perfx: interrupted", err=True)
        sys.exit(130)
    except Exception as err:
        if isinstance(err, user_error_types()):
            from perfx.explain.wording import printable

            # the message may quote a query or a log: its control characters are shown escaped
            click.echo(f"perfx: {printable(str(err))}", err=True)
            sys.exit(getattr(err, "exit_code", 1))
        if os.environ.get("PERFX_DEBUG"):
            raise
        from perfx.explain.wording import printable

        click.echo(
            f"perfx: internal error: {type(err).__name__}: {printable(str(err))} "
            "(set PERFX_DEBUG=1 for the traceback)",
            err=True,
        )
        sys.exit(70)
    sys.exit(0)


def run() -> None:
    """The console script: ``main``, then the interpreter's exit without its last collection
    over every object the command built (``gc.freeze``), which took half a second after a
    report of 10^5 tasks, a quarter of a cached ``perfx explain``. Objects are still freed
    (by their counts), files closed and exit handlers run; only garbage in reference cycles
    is left to the process's end. Not in ``main``: tests call it in their own process."""
    try:
        main()
    finally:
        gc.freeze()


if __name__ == "__main__":
    run()
