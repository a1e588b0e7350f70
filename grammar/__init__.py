"""PXQL: the grammar, the typed syntax tree, the parser, the canonical printer and errors.

    parse(text, features=None) -> ast.Query        parser.py  (the only entry point for text)
    to_pxql(query) -> str                          printer.py (canonical text; round-trips)
    query_to_dict(query) -> dict                   serialize.py (``perfx parse --format json``)
    check_pair(query, oracle)                      semantics.py (checks that need a log)
    PxqlError                                      errors.py  (the only exception parse raises)

Inside: pxql.lark (LALR grammar) -> lexer.py (contextual lexer) -> transformer.py (AST nodes
and the syntactic checks, run inline by lark) -> checks.py (the caller's feature list);
syntax_errors.py words lark's errors; units.py normalises ``128MB``/``2s`` to bytes/ms
(sizes are binary: 1 KB = 1024 bytes).
"""
