"""Units of PXQL number literals: ``128MB``, ``1.5GB``, ``300ms``, ``2s``, ``5min``.

A number with a unit is normalised to the log's units (docs/design.md, "Data model"): times to
milliseconds, sizes to bytes. Sizes are binary, as Hadoop and Spark write them
(``spark.executor.memory=1g`` is 1024**3 bytes): 1 KB = 1024 B, 1 MB = 1024**2 B, and so on;
``KiB``/``MiB``/``GiB``/``TiB`` are accepted as the same units under their IEC names.

Normalisation is exact (the literal is read as a fraction and rounded once), and
``format_magnitude`` finds the shortest decimal that normalises back to the same float, so
that the canonical printer round-trips every number.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from fractions import Fraction
from typing import Literal

Dimension = Literal["time", "size"]

_TIME_MS: dict[str, Fraction] = {
    "ns": Fraction(1, 1_000_000),
    "us": Fraction(1, 1_000),
    "ms": Fraction(1),
    "s": Fraction(1_000),
    "min": Fraction(60_000),
    "h": Fraction(3_600_000),
}
_SIZE_BYTES: dict[str, Fraction] = {
    "B": Fraction(1),
    "KB": Fraction(1024),
    "MB": Fraction(1024**2),
    "GB": Fraction(1024**3),
    "TB": Fraction(1024**4),
    "KiB": Fraction(1024),
    "MiB": Fraction(1024**2),
    "GiB": Fraction(1024**3),
    "TiB": Fraction(1024**4),
}
_ALIASES = {"sec": "s", "secs": "s", "mins": "min"}
_CANONICAL = {name.lower(): name for name in (*_TIME_MS, *_SIZE_BYTES)}

UNITS: tuple[str, ...] = tuple(_TIME_MS) + tuple(_SIZE_BYTES)
"""The canonical unit names, in the order error messages list them."""


class NumberError(ValueError):
    """A literal that is not a finite number (``1e999``): the parser reports it in place."""


def canonical_unit(written: str) -> str:
    """``"mb"`` -> ``"MB"``, ``"secs"`` -> ``"s"``: the name ``Number.unit`` stores."""
    lowered = written.lower()
    return _CANONICAL[_ALIASES.get(lowered, lowered)]


def dimension(unit: str) -> Dimension:
    return "time" if unit in _TIME_MS else "size"


def _factor(unit: str | None) -> Fraction:
    if unit is None:
        return Fraction(1)
    return _TIME_MS.get(unit) or _SIZE_BYTES[unit]


_DECIMAL = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?")
_MAX_EXPONENT = 350
"""Beyond 10**350 a float overflows and below 10**-350 it underflows, whatever the unit's
factor (10**-6 to 2**40): exponents are clamped before any power of ten is built, so that
``1e999999999`` costs nothing (Fraction would build a billion-digit integer)."""


def normalise(literal: str, unit: str | None) -> float:
    """The value of ``literal`` (a decimal, as the grammar's NUMBER) times ``unit``'s factor,
    rounded once to the nearest float. Raises NumberError when it is not finite.

    Exact: the literal is read as integer mantissa and decimal exponent, and Python's
    int / int division rounds correctly."""
    factor = _factor(unit)
    match = _DECIMAL.fullmatch(literal)
    if match is None or not (match.group(2) or match.group(3)):
        raise NumberError(f"not a number: {literal}")
    sign, whole, fraction, exponent = match.groups()
    digits = (whole + (fraction or "")).lstrip("0")
    if not digits:
        return -0.0 if sign == "-" else 0.0
    if len(digits) > 800:  # more than any float needs to be told apart
        raise NumberError(f"number with too many digits: {literal[:20]}...")
    power = int(exponent or 0) - len(fraction or "")
    magnitude = len(digits) + power  # the literal is below 10**magnitude
    if magnitude > _MAX_EXPONENT:
        raise NumberError(f"number out of range: {literal}")
    if magnitude < -_MAX_EXPONENT:
        return -0.0 if sign == "-" else 0.0
    numerator = int(digits) * factor.numerator
    denominator = factor.denominator
    if power >= 0:
        numerator *= 10**power
    else:
        denominator *= 10**-power
    try:
        value = numerator / denominator
    except OverflowError:
        raise NumberError(f"number out of range: {literal}") from None
    if not math.isfinite(value):
        raise NumberError(f"number out of range: {literal}")
    return -value if sign == "-" else value


def format_magnitude(value: float, unit: str | None) -> str:
    """The shortest decimal ``d`` with ``normalise(d, unit) == value`` (``value`` in ms or
    bytes): 134217728.0 in MB is ``"128"``, 1500.0 in s is ``"1.5"``."""
    if unit is None:
        return _shortest(value)  # repr's digits read back as the same float
    factor = _factor(unit)
    if value.is_integer() and factor.denominator == 1 and abs(value) < 1e15:
        whole, rest = divmod(int(value), factor.numerator)
        if rest == 0:
            return str(whole)  # 134217728 bytes in MB: "128", exactly
    exact = Fraction(value) / factor
    try:
        candidate = _shortest(float(exact))
        if normalise(candidate, unit) == value:
            return candidate
    except (OverflowError, NumberError):  # 1e306 ms is 1e312 ns: beyond a float's range
        pass
    # The float nearest the magnitude does not scale back exactly: write enough digits that
    # rounding after scaling must land on value (the error is far below half an ulp).
    return _plain(Decimal(exact.numerator) / Decimal(exact.denominator))


def _shortest(magnitude: float) -> str:
    """repr's shortest round-tripping digits, without exponent for everyday numbers."""
    if magnitude.is_integer() and abs(magnitude) < 1e16:
        return str(int(magnitude))
    text = repr(magnitude)
    return text.replace("e+", "e")


def _plain(number: Decimal) -> str:
    return format(number, "g").replace("E+", "e").replace("E", "e")


def format_ms(ms: float) -> str:
    """A duration as perfx's answers say it: ``730 ms``, ``2.43 s``, ``3.2 min`` (the
    diagnoses, the skew reasons, the report, the REPL)."""
    if ms < 1000:
        return f"{ms:,.0f} ms"
    if ms < 60_000:
        return f"{ms / 1000:,.2f} s"
    return f"{ms / 60_000:,.1f} min"
