"""The event vocabulary shared by devices, the tracker, storage, the dashboard and the sign.

Everything that happens at a table is an ``Event``: inputs (card reads, wagers, decisions,
supervisor actions, device links) and the tracker's outputs (alarms, voids, settlements). Events are
plain frozen dataclasses so the core stays free of I/O; ``to_dict``/``event_from_dict`` give the
canonical JSON form used by the log, the wire and replay files (documented in ``docs/events.md``).

Modules add their own event types by subclassing ``Event`` with a unique ``kind`` and listing the
class in ``dealerassist.vocabulary``, the one explicit registry every decoder uses.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from dealerassist.core.cards import Card
from dealerassist.errors import DealerAssistError

EVENT_FORMAT_VERSION = 1
# The table id of records about the whole pit rather than one table (logins, exports, protection
# reviews): no table's screen shows them.
PIT_WIDE = "*"

CardSource = Literal["shoe", "camera", "manual"]
DeviceName = Literal["shoe", "sign", "camera", "meter-link", "event-log"]


class EventError(DealerAssistError, ValueError):
    """An event that cannot be decoded or is not valid; the message names the field."""


@dataclass(frozen=True, kw_only=True)
class Event:
    """Base of all events. ``table`` names the table the event belongs to."""

    kind: ClassVar[str] = ""
    table: str

    def to_dict(self) -> dict[str, Any]:
        """Canonical plain-data form: cards as codes, tuples as lists, plus ``kind``."""
        out: dict[str, Any] = {"kind": self.kind}
        for f in dataclasses.fields(self):
            out[f.name] = _encode(getattr(self, f.name))
        return out


def _encode(value: Any) -> Any:
    if isinstance(value, Card):
        return value.code
    if isinstance(value, tuple | list):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _encode(v) for k, v in value.items()}
    return value


def event_types() -> Mapping[str, type[Event]]:
    """Every event type by kind: the explicit list of ``dealerassist.vocabulary``.

    Imported on first use, not at the top: the vocabulary imports the modules that define events,
    and every one of them imports this module.
    """
    from dealerassist.vocabulary import EVENT_TYPES

    return EVENT_TYPES


def event_from_dict(data: dict[str, Any]) -> Event:
    """Decode and validate one event; errors name the field and the problem."""
    if not isinstance(data, dict):
        raise EventError(f"an event must be a JSON object, got {type(data).__name__}")
    kind = data.get("kind")
    known = event_types()
    cls = known.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise EventError(f"kind: unknown event type {kind!r} (known: {', '.join(sorted(known))})")
    hints = _type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = set(data) - set(fields) - {"kind"}
    if unknown:
        raise EventError(f"{kind}: unknown field(s) {', '.join(sorted(unknown))}")
    kwargs: dict[str, Any] = {}
    for name, f in fields.items():
        if name not in data:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise EventError(f"{kind}.{name}: missing")
            continue
        kwargs[name] = _decode(data[name], hints[name], f"{kind}.{name}")
    try:
        return cls(**kwargs)
    except EventError:
        raise
    except (TypeError, ValueError) as exc:
        raise EventError(f"{kind}: {exc}") from None


@functools.cache
def _type_hints(cls: type[Event]) -> dict[str, Any]:
    """Resolved field types of an event class; resolving them is slow, and they never change."""
    return typing.get_type_hints(cls)


def _decode(value: Any, hint: Any, where: str) -> Any:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        errors = []
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _decode(value, arg, where)
            except EventError as exc:
                errors.append(str(exc))
        raise EventError(errors[0] if errors else f"{where}: must not be null")
    if origin is Literal:
        if value not in args:
            raise EventError(f"{where}: must be one of {', '.join(map(repr, args))}, got {value!r}")
        return value
    if hint is Card:
        if not isinstance(value, str):
            raise EventError(f"{where}: a card must be text like 'AS', got {value!r}")
        try:
            return Card.parse(value)
        except ValueError as exc:
            raise EventError(f"{where}: {exc}") from None
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise EventError(f"{where}: must be a list, got {value!r}")
        inner = args[0] if args else Any
        return tuple(_decode(v, inner, f"{where}[{i}]") for i, v in enumerate(value))
    if origin is dict:
        if not isinstance(value, dict):
            raise EventError(f"{where}: must be an object, got {value!r}")
        return dict(value)
    if hint is bool:
        if not isinstance(value, bool):
            raise EventError(f"{where}: must be true or false, got {value!r}")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise EventError(f"{where}: must be a whole number, got {value!r}")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise EventError(f"{where}: must be a number, got {value!r}")
        return float(value)
    if hint is str:
        if not isinstance(value, str):
            raise EventError(f"{where}: must be text, got {value!r}")
        return value
    return value


# --- Inputs from devices (firmware_bridge and vision emit these) -------------------------------


@dataclass(frozen=True, kw_only=True)
class CardRead(Event):
    """A card seen by the shoe, the camera or entered by hand.

    ``card`` is ``None`` when the reader saw a card but could not read it. ``position`` is set when
    the source knows where the card lies (a camera zone, a manual entry); shoe reads have none and
    are assigned by the tracker in dealing order. ``confidence`` is 0..1 (1.0 for shoe and manual).
    ``track`` is the camera's name for one physical card while it stays in view: it is how the
    tracker tells a card read again from another card of the same code (multi-deck shoes, Pairs &
    Up's aces), e.g. a hidden twin turned face up. ``shoe_boot`` and ``shoe_sequence`` name a shoe
    card exactly once (the shoe's power-up and its card counter): a table deals each pair once.
    """

    kind: ClassVar[str] = "card-read"
    source: CardSource
    card: Card | None
    face_up: bool = True
    confidence: float = 1.0
    position: str | None = None
    snapshot: str | None = None
    shoe_sequence: int | None = None
    shoe_boot: int | None = None
    device_time: str | None = None
    track: str | None = None

    def __post_init__(self) -> None:
        if not 0.0 <= self.confidence <= 1.0:
            raise EventError(f"card-read.confidence: must be within 0..1, got {self.confidence!r}")


@dataclass(frozen=True, kw_only=True)
class CardRemoved(Event):
    """The camera no longer sees a card it had reported in ``position``."""

    kind: ClassVar[str] = "card-removed"
    source: CardSource = "camera"
    card: Card | None = None
    position: str | None = None
    track: str | None = None


@dataclass(frozen=True, kw_only=True)
class DealerButton(Event):
    """The dealer pressed the shoe's button (by convention: reveal / next step)."""

    kind: ClassVar[str] = "dealer-button"
    source: CardSource = "shoe"


@dataclass(frozen=True, kw_only=True)
class ShoeStatus(Event):
    """A status the shoe reported; anything but ``ok`` needs the dealer's attention."""

    kind: ClassVar[str] = "shoe-status"
    status: Literal["ok", "empty", "jam", "cover-open", "card-unreadable"]
    detail: str = ""


@dataclass(frozen=True, kw_only=True)
class DeviceLink(Event):
    """A device link went down or came back; a down link raises an alarm until it returns."""

    kind: ClassVar[str] = "device-link"
    device: DeviceName
    up: bool
    detail: str = ""
    url: str = ""


@dataclass(frozen=True, kw_only=True)
class DeviceAlarm(Event):
    """Trouble on a link that stays up: an unannounced device reset, a message the host refused,
    a line whose error rate crossed its threshold. Raises an alarm a supervisor acknowledges."""

    kind: ClassVar[str] = "device-alarm"
    device: DeviceName
    code: Literal["reset", "gap", "protocol", "line-health"]
    detail: str = ""


@dataclass(frozen=True, kw_only=True)
class Meta(Event):
    """Free-form annotation (for example a replay file's description); never changes state."""

    kind: ClassVar[str] = "meta"
    data: dict[str, Any] = field(default_factory=dict)
