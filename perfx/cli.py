"""The ``perfx`` command line: a thin click group over the library.

Each command lives in its own module under ``perfx/commands`` and is imported only when it
is used (or listed by ``--help``), so that a quick ``perfx parse`` never starts pandas or a
JVM. Errors that are the user's to fix are printed as one readable message on stderr with a
non-zero exit code, never as a traceback.
"""

from __future__ import annotations

import functools
import os
import pkgutil
import sys

import click

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

USER_ERRORS: tuple[str, ...] = (
    "perfx.grammar.errors:PxqlError",
    "perfx.logs.errors:LogError",
    "perfx.explain.errors:ExplainError",
    "perfx.isolation.errors:IsolationError",
)
"""Exception classes whose message is meant for the user; each may set ``exit_code``."""


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


@functools.cache
def user_error_types() -> tuple[type[Exception], ...]:
    return tuple(map(pkgutil.resolve_name, USER_ERRORS))


def main(argv: list[str] | None = None) -> None:
    """Entry point of the console script: runs the group and turns errors into exit codes."""
    try:
        cli.main(args=argv, prog_name="perfx", standalone_mode=False)
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


if __name__ == "__main__":
    main()
