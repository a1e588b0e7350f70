"""The papers' experiments reproduced: PerfXplain's evaluation (section 6: the protocol, the
experiments, the report and its plots) on logs of the EC2-style simulator (``ec2``, with a
small sample under ``fixtures/``), and PerfDebug's accuracy experiment (section 5.5).

Built on explain/ and isolation/; nothing below imports it (pyproject's import-linter layers)."""
