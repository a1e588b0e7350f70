"""PXQL: the grammar, the typed syntax tree, the parser, the canonical printer and errors."""
