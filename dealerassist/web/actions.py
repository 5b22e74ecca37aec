"""Every state change the dashboard can make, as data: who may do it and what it sends.

Each action is a tracker input event kind. Its fields are read from the event class itself
(``dealerassist.tracker.events``), so the API, the forms and the OpenAPI description follow the
tracker's contract without a second copy. The dashboard fills in ``table``, ``user`` and ``role``;
everything else comes from the request and is checked here first so a bad value gets a 4xx naming
the field. Pages send the ``round_id`` they show, so an action from a stale screen is refused.

Money fields accept an integer number of cents (JSON) or a dollar text such as ``"25"`` or
``"$12.50"`` (forms). Card fields accept any text ``Card.parse`` reads (``As``, ``10h``).
"""

from __future__ import annotations

import dataclasses
import functools
import re
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from dealerassist.core.cards import Card
from dealerassist.core.money import MoneyError, parse_amount
from dealerassist.events import Event, EventError, event_from_dict, event_types

SERVER_FIELDS: Final = frozenset({"table", "user", "role"})
# Longest number texts read: beyond them a value is a typo or an attack (and a 5,000-digit
# integer is past what Python converts).
MAX_WHOLE_TEXT: Final = 18
MAX_AMOUNT_TEXT: Final = 24
_WHOLE = re.compile(r"^-?[0-9]+$")
MONEY_FIELDS: Final = frozenset({"amount", "stake", "cents"})
REASON_FIELDS: Final = frozenset({"reason"})
# Values the dashboard fixes whatever the client sends: a card typed in is a manual read.
FORCED_FIELDS: Final[dict[str, dict[str, Any]]] = {"card-read": {"source": "manual", "confidence": 1.0}}


@dataclass(frozen=True)
class Action:
    kind: str
    permission: str
    summary: str


ACTIONS: Final[dict[str, Action]] = {
    a.kind: a
    for a in (
        Action("round-open", "play", "Open a new round for betting."),
        Action("wager", "play", "Place, change (amount) or remove (amount 0) a seat's wager."),
        Action("betting-closed", "play", "No more bets: check every seat and start the deal."),
        Action("seat-player", "play", "Name the player at a seat: a player id or card number (empty: left)."),
        Action("new-shoe", "play", "A freshly shuffled shoe is in play (between rounds)."),
        Action("dice", "play", "The dice total that picks the first seat (pai gow)."),
        Action("decision", "play", "A player's decision: play, fold, hit, stand, double, split, set a hand."),
        Action("dealer-reveal", "play", "Reveal the dealer's hand."),
        Action("confirm-read", "play", "Confirm (or correct) a low-confidence card read."),
        Action("round-close", "play", "Close a settled round so the next can open."),
        Action("ack-alarm", "supervise", "Acknowledge and clear an alarm (reason required)."),
        Action("approve-void", "supervise", "Void the round: every wager is returned."),
        Action("forfeit", "supervise", "Forfeit a seat's hand: its wagers lose."),
        Action("correct-card", "supervise", "Replace a recorded card (reason required)."),
        Action("correct-wager", "supervise", "Replace a recorded wager amount (reason required)."),
        Action("card-read", "supervise", "Enter a card by hand (source manual) when no reader saw it."),
    )
}


class ActionError(Exception):
    """A request that cannot become an event; ``status`` is the HTTP status to answer with."""

    def __init__(self, status: int, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.status = status
        self.field = field
        self.message = message


def event_class(kind: str) -> type[Event] | None:
    """The event class of ``kind`` in the vocabulary (``dealerassist.vocabulary``)."""
    return event_types().get(kind)


def available() -> dict[str, Action]:
    """Actions whose event class is in the vocabulary."""
    return {kind: a for kind, a in ACTIONS.items() if event_class(kind) is not None}


def client_fields(kind: str) -> dict[str, tuple[Any, bool]]:
    """Field name -> (type hint, required) for what a client may send for ``kind``."""
    if event_class(kind) is None:
        return {}
    return dict(_client_fields(kind))


@functools.cache
def _client_fields(kind: str) -> tuple[tuple[str, tuple[Any, bool]], ...]:
    """Worked out once per action: resolving the type hints was most of every action request."""
    cls = event_class(kind)
    assert cls is not None  # client_fields asked first
    hints = typing.get_type_hints(cls)
    forced = FORCED_FIELDS.get(kind, {})
    return tuple(
        (
            f.name,
            (hints[f.name], f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING),
        )
        for f in dataclasses.fields(cls)
        if f.name not in SERVER_FIELDS and f.name not in forced
    )


def _coerce(name: str, value: Any, hint: Any) -> Any:
    """Turn form text into the JSON type ``event_from_dict`` expects; JSON values pass through."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if value in (None, ""):
            return None
        inner = [a for a in args if a is not type(None)]
        return _coerce(name, value, inner[0]) if len(inner) == 1 else value
    if hint is int and name in MONEY_FIELDS:
        if isinstance(value, str):
            if len(value) > MAX_AMOUNT_TEXT:
                raise ActionError(
                    422, name, f"must be a dollar amount like '25' or '$12.50', got {value[:40]!r}"
                )
            try:
                return parse_amount(value)
            except MoneyError as exc:
                raise ActionError(422, name, str(exc)) from None
        return value
    if hint is int and isinstance(value, str):
        text = value.strip()
        if len(text) > MAX_WHOLE_TEXT or not _WHOLE.match(text):
            raise ActionError(422, name, f"must be a whole number, got {value[:40]!r}")
        return int(text)
    if hint is float and isinstance(value, str):
        try:
            if len(value) <= MAX_AMOUNT_TEXT:
                return float(value)
        except ValueError:
            pass
        raise ActionError(422, name, f"must be a number, got {value[:40]!r}")
    if hint is bool and isinstance(value, str):
        if value.lower() not in ("true", "false", "on", "off", "1", "0", "yes", "no"):
            raise ActionError(422, name, f"must be true or false, got {value!r}")
        return value.lower() in ("true", "on", "1", "yes")
    if origin is tuple and isinstance(value, str):
        return [p for p in value.replace(",", " ").split() if p]
    if hint is Card and isinstance(value, str):
        return value.strip()
    if origin is Literal and isinstance(value, str) and value not in args:
        raise ActionError(422, name, f"must be one of {', '.join(map(str, args))}, got {value!r}")
    return value


def build_event(kind: str, body: Mapping[str, Any], *, table: str, user: str, role: str) -> Event:
    """Check ``body`` against ``kind``'s fields and build the event, or raise ``ActionError``."""
    if kind not in ACTIONS or event_class(kind) is None:
        raise ActionError(
            404, "action", f"unknown action {kind!r} (actions: {', '.join(sorted(available()))})"
        )
    if not isinstance(body, Mapping):
        raise ActionError(400, "body", "must be a JSON object of the action's fields")
    fields = client_fields(kind)
    unknown = sorted(set(body) - set(fields) - {"csrf_token", *SERVER_FIELDS, *FORCED_FIELDS.get(kind, {})})
    if unknown:
        raise ActionError(422, unknown[0], f"not a field of {kind} (fields: {', '.join(fields)})")
    data: dict[str, Any] = {"kind": kind, "table": table, **FORCED_FIELDS.get(kind, {})}
    cls_fields = {f.name for f in dataclasses.fields(event_class(kind))}  # type: ignore[arg-type]
    if "user" in cls_fields:
        data["user"] = user
    if "role" in cls_fields:
        data["role"] = role
    for name, (hint, required) in fields.items():
        value = body.get(name)
        if value is None or value == "":
            if required:
                raise ActionError(422, name, "required")
            continue
        value = _coerce(name, value, hint)
        if value is None:
            continue
        if name in REASON_FIELDS and (not isinstance(value, str) or not value.strip()):
            raise ActionError(422, name, "a reason is required")
        data[name] = value
    for name in REASON_FIELDS & set(fields):
        if name not in data:
            raise ActionError(422, name, "a reason is required")
    try:
        return event_from_dict(data)
    except EventError as exc:
        field = _field_in(str(exc), kind)
        raise ActionError(422, field, str(exc)) from None


def _field_in(message: str, kind: str) -> str:
    """``"wager.amount: must be..."`` names field ``amount``."""
    head = message.split(":", 1)[0]
    prefix = f"{kind}."
    return head[len(prefix) :].split("[")[0] if head.startswith(prefix) else "body"
