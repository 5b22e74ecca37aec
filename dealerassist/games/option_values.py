"""Checks for table option values whose TOML type matters.

A quoted ``"false"`` is text, and text is true to Python, so a yes/no option read with ``bool()``
would run the opposite rule from the one written. Each check names the option and what it got."""

from __future__ import annotations

from dealerassist.errors import RuleViolation


def yes_no(name: str, value: object) -> bool:
    """A yes/no option: only TOML ``true`` or ``false`` (unquoted) is accepted."""
    if not isinstance(value, bool):
        raise RuleViolation("option-value", f"{name} must be true or false (unquoted), got {value!r}")
    return value


def fraction_of_one(name: str, value: object) -> float:
    """A share from 0 to 1, like a recognition confidence threshold."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise RuleViolation("option-value", f"{name} must be a number from 0 to 1, got {value!r}")
    return float(value)
