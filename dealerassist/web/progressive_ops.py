"""Supervisor operations on a progressive: confirm a jackpot paid, change parameters, correct the meter.

The controller itself checks the role and logs each operation with its user; this module only
turns a request body into the controller's arguments, naming the field that is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from dealerassist.core.money import MoneyError, parse_amount
from dealerassist.errors import ConfigError
from dealerassist.progressive.params import params_from_dict
from dealerassist.web.actions import MAX_AMOUNT_TEXT, ActionError

OPERATIONS = ("confirm-paid", "params", "correct")
PARAM_FIELDS = ("wager", "base", "reset", "increment", "reserve", "limit")


def _text(body: Mapping[str, Any], name: str) -> str:
    value = body.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ActionError(422, name, "required")
    return value.strip()


def _signed_cents(text: str, name: str) -> Fraction:
    """``+12.34`` / ``-5`` / ``5``: one sign at most (``--5`` or ``+-5`` is a typo, not an amount)."""
    sign, rest = (text[0], text[1:]) if text[:1] in ("+", "-") else ("+", text)
    try:
        cents = parse_amount(rest) if len(rest) <= MAX_AMOUNT_TEXT else None
    except MoneyError:
        cents = None
    if cents is None:
        raise ActionError(422, name, f"must be a signed dollar amount like +12.34 or -5, got {text[:40]!r}")
    return Fraction(-cents if sign == "-" else cents)


def run(controller: Any, op: str, body: Mapping[str, Any], *, user: str, role: str) -> dict[str, Any]:
    """Carry out ``op``; ``RuleViolation`` from the controller propagates (answered as 409)."""
    if op == "confirm-paid":
        paid = controller.confirm(_text(body, "hit_id"), user, role)
        return paid.to_dict()
    if op == "params":
        reason = _text(body, "reason")
        unknown = sorted(set(body) - set(PARAM_FIELDS) - {"reason"})
        if unknown:
            raise ActionError(
                422, unknown[0], f"not a progressive parameter (parameters: {', '.join(PARAM_FIELDS)})"
            )
        current = controller.params.to_dict()
        changed = {k: str(v).strip() for k, v in body.items() if k in PARAM_FIELDS and str(v).strip() != ""}
        try:
            new = params_from_dict({**current, **changed})
        except ConfigError as exc:
            field = re.sub(r"^progressive\.", "", exc.key).split(".")[0]
            raise ActionError(422, field, exc.problem) from None
        event = controller.change_params(new, user, role)
        return {**event.to_dict(), "reason": reason}
    if op == "correct":
        reason = _text(body, "reason")
        amount = _signed_cents(_text(body, "meter"), "meter")
        return controller.correct(amount, user, role, reason).to_dict()
    raise ActionError(404, "op", f"unknown operation {op!r} (operations: {', '.join(OPERATIONS)})")
