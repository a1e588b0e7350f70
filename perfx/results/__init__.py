"""What a :class:`perfx.session.Session` answers, one class per question: each result holds its
figures, gives the stable JSON the CLI prints (``to_dict()``) and renders itself for rich
(``__rich__``), so that the CLI, the REPL, batch and Python users all get the same thing.

Every string that comes from a log, a record or a query is rendered as rich ``Text``, never as
markup: a host named ``[bold]h0`` is printed as those characters.
"""
