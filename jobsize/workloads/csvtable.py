"""Reading the comma-separated tables of the relational programs (standard library only)."""

from __future__ import annotations

from collections.abc import Sequence

from jobsize.workloads.streaming import UsageError, int_arg


def column_arg(args: Sequence[str], index: int, name: str, default: int) -> int:
    """A 0-based column number argument."""
    column = int_arg(args, index, name, default)
    if column < 0:
        raise UsageError(f"{name} must be a column number from 0, got {column}")
    return column


def cents(text: str) -> int:
    """A decimal amount (``17.49``, ``3``, ``0.5``) in hundredths, exactly."""
    whole, _, fraction = text.partition(".")
    if not whole.isdigit() or (fraction and not fraction.isdigit()) or len(fraction) > 2:
        raise ValueError(f"not an amount with at most two decimals: {text!r}")
    return int(whole) * 100 + int(fraction.ljust(2, "0") or "0")


def amount(value: int) -> str:
    """Hundredths as a decimal amount: ``1749`` → ``17.49``."""
    return f"{value // 100}.{value % 100:02d}"
