"""``perfx mcp``: serve perfx to assistants over the Model Context Protocol (stdio)."""

from __future__ import annotations

import click


@click.command()
def mcp() -> None:
    """Serve perfx's questions as MCP tools over stdio, for an assistant to call.

    Tools: list_applications, explain (a PXQL question), stragglers, whatif, compare_job
    (a job against its earlier runs in a feature store) and culprits (of a traced run). Each
    returns the answer's JSON, as --format json prints it; a bad query is a tool error with
    perfx's message and caret. Register it with an assistant as the command `perfx mcp`.
    """
    from perfx.assistant import serve

    serve()
