"""Every event type the system writes, listed by hand: the one registry every decoder uses.

A log must decode in any process whatever that process has imported (a table replays its log
before the dashboard's code is loaded; ``audit`` loads neither), so the list is explicit: no
package scanning, no registration as a side effect of importing a module. A new event type is
added to ``EVENTS`` below and documented in ``docs/event-kinds.md``; ``tests/storage/test_vocabulary.py``
fails while an ``Event`` subclass with a ``kind`` in the source is missing here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from dealerassist.events import (
    CardRead,
    CardRemoved,
    DealerButton,
    DeviceAlarm,
    DeviceLink,
    Event,
    Meta,
    ShoeStatus,
)
from dealerassist.progressive.events import (
    ProgressiveContribution,
    ProgressiveCorrection,
    ProgressiveHit,
    ProgressivePaid,
    ProgressiveParamsChanged,
    ProgressiveReset,
)
from dealerassist.protection.events import ProtectionReview
from dealerassist.storage.events import KeyRotated
from dealerassist.tracker.events import (
    AckAlarm,
    Alarm,
    AlarmCleared,
    ApproveVoid,
    BettingClosed,
    CardDealt,
    CardMoved,
    ConfirmRead,
    CorrectCard,
    CorrectWager,
    DealerReveal,
    Dice,
    Forfeit,
    NewShoe,
    Phase,
    PlayerDecision,
    ReadNeedsConfirmation,
    Refused,
    RoundClose,
    RoundOpen,
    RoundSettled,
    RoundVoided,
    SeatPlayer,
    TableConfigured,
    TableState,
    Wager,
)
from dealerassist.web.events import UserAction

EVENTS: tuple[type[Event], ...] = (
    # devices (dealerassist.events)
    CardRead,
    CardRemoved,
    DealerButton,
    ShoeStatus,
    DeviceLink,
    DeviceAlarm,
    Meta,
    # tracker inputs (dealerassist.tracker.events)
    RoundOpen,
    Wager,
    BettingClosed,
    PlayerDecision,
    SeatPlayer,
    NewShoe,
    Dice,
    DealerReveal,
    AckAlarm,
    ApproveVoid,
    Forfeit,
    CorrectCard,
    CorrectWager,
    ConfirmRead,
    RoundClose,
    # tracker outputs
    CardDealt,
    CardMoved,
    ReadNeedsConfirmation,
    Phase,
    Alarm,
    AlarmCleared,
    Refused,
    RoundVoided,
    RoundSettled,
    TableState,
    TableConfigured,
    # progressive controller (dealerassist.progressive.events)
    ProgressiveContribution,
    ProgressiveHit,
    ProgressiveReset,
    ProgressivePaid,
    ProgressiveParamsChanged,
    ProgressiveCorrection,
    # the log's keys (dealerassist.storage.events)
    KeyRotated,
    # dashboard (dealerassist.web.events)
    UserAction,
    # game protection's reviews of its flags (dealerassist.protection.events)
    ProtectionReview,
)


def by_kind(classes: Iterable[type[Event]]) -> Mapping[str, type[Event]]:
    """Kind -> class, refusing a class without a kind and a kind defined twice."""
    found: dict[str, type[Event]] = {}
    for cls in classes:
        kind = cls.__dict__.get("kind")
        if not kind:
            raise TypeError(f"{cls.__qualname__}: an event type needs its own kind")
        if kind in found:
            twice = f"{found[kind].__qualname__}, {cls.__qualname__}"
            raise TypeError(f"event kind {kind!r} defined twice: {twice}")
        found[kind] = cls
    return MappingProxyType(found)


EVENT_TYPES: Mapping[str, type[Event]] = by_kind(EVENTS)
