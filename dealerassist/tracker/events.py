"""The round tracker's events: what dealers, supervisors and the dashboard send, and what it answers.

Inputs name the person (``user``) and their ``role``: only a supervisor or an admin may acknowledge
an alarm, void a round, forfeit a hand or correct a card or a wager, and those always need a reason.
Outputs are produced only by the tracker. Every field is documented in ``docs/event-kinds.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any, ClassVar, Literal

from dealerassist.core.cards import Card
from dealerassist.events import CardSource, Event, EventError

Role = Literal["dealer", "supervisor", "admin", "surveillance", "system"]
SUPERVISOR_ROLES = frozenset({"supervisor", "admin"})
AlarmCode = Literal[
    "exposed-dealer-card",
    "misdeal",
    "read-mismatch",
    "low-confidence",
    "device-link",
    "shoe-status",
    "shoe-sequence",
    "device-alarm",
    "progressive",
]
Severity = Literal["info", "warning", "critical"]
PLAYER_ID_LENGTH = 64


def _require(kind: str, name: str, ok: bool, why: str) -> None:
    if not ok:
        raise EventError(f"{kind}.{name}: {why}")


@dataclass(frozen=True, kw_only=True)
class TrackerInput(Event):
    """Base of inputs a person or the dashboard sends; ``round_id`` (optional) must be the open round."""

    round_id: int | None = None
    user: str = ""
    role: Role = "dealer"

    def __post_init__(self) -> None:
        _require(self.kind, "round_id", self.round_id is None or self.round_id >= 1, "must be 1 or more")


@dataclass(frozen=True, kw_only=True)
class SupervisorInput(TrackerInput):
    """An action with consequences for money or integrity: always a named user and a reason."""

    reason: str

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(self.kind, "user", bool(self.user.strip()), "a supervisor action must name the user")
        _require(self.kind, "reason", bool(self.reason.strip()), "a supervisor action must give a reason")


# --- inputs ------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class RoundOpen(TrackerInput):
    """Start a round (betting opens). Without ``round_id`` the tracker numbers it."""

    kind: ClassVar[str] = "round-open"


@dataclass(frozen=True, kw_only=True)
class Wager(TrackerInput):
    """Place or change a wager while betting is open; ``amount`` 0 takes it down."""

    kind: ClassVar[str] = "wager"
    seat: int
    bet: str
    amount: int

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(self.kind, "seat", self.seat >= 1, f"must be 1 or more, got {self.seat}")
        _require(self.kind, "amount", self.amount >= 0, f"must be cents >= 0, got {self.amount}")
        _require(self.kind, "bet", bool(self.bet), "must name the bet")


@dataclass(frozen=True, kw_only=True)
class BettingClosed(TrackerInput):
    kind: ClassVar[str] = "betting-closed"


@dataclass(frozen=True, kw_only=True)
class PlayerDecision(TrackerInput):
    """A player's (or player-dealer's) decision; fields as ``games.base.Decision``."""

    kind: ClassVar[str] = "decision"
    position: str
    action: str
    amount: int | None = None
    choice: str | None = None
    cards: tuple[Card, ...] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(self.kind, "amount", self.amount is None or self.amount >= 0, "must be cents >= 0")
        _require(self.kind, "action", bool(self.action), "must name the action")


@dataclass(frozen=True, kw_only=True)
class SeatPlayer(TrackerInput):
    """Who plays at a seat: the player id or card number the dealer enters (``""`` when the player
    leaves). Changes no round; game protection follows the player across seats with it."""

    kind: ClassVar[str] = "seat-player"
    seat: int
    player: str = ""

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(self.kind, "seat", self.seat >= 1, f"must be 1 or more, got {self.seat}")
        _require(
            self.kind,
            "player",
            len(self.player) <= PLAYER_ID_LENGTH
            and self.player == self.player.strip()
            and self.player.isprintable(),
            f"must be a player id or card number of at most {PLAYER_ID_LENGTH} printable characters, "
            "no outer spaces",
        )


@dataclass(frozen=True, kw_only=True)
class NewShoe(TrackerInput):
    """The dealer put a freshly shuffled shoe in play, between rounds: game protection's card
    count starts again at the next round. Changes no round."""

    kind: ClassVar[str] = "new-shoe"


@dataclass(frozen=True, kw_only=True)
class Dice(TrackerInput):
    """The dice total that picks the first seat dealt (pai gow)."""

    kind: ClassVar[str] = "dice"
    total: int

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(self.kind, "total", 2 <= self.total <= 18, f"must be a dice total 2..18, got {self.total}")


@dataclass(frozen=True, kw_only=True)
class DealerReveal(TrackerInput):
    """The dealer turns the dealer's cards face up."""

    kind: ClassVar[str] = "dealer-reveal"


@dataclass(frozen=True, kw_only=True)
class AckAlarm(SupervisorInput):
    kind: ClassVar[str] = "ack-alarm"
    alarm_id: str


@dataclass(frozen=True, kw_only=True)
class ApproveVoid(SupervisorInput):
    """A supervisor voids the open round: every wager is returned."""

    kind: ClassVar[str] = "approve-void"


@dataclass(frozen=True, kw_only=True)
class Forfeit(SupervisorInput):
    kind: ClassVar[str] = "forfeit"
    seat: int


@dataclass(frozen=True, kw_only=True)
class CorrectCard(SupervisorInput):
    """Replace the card at ``position``/``index`` (0-based) with ``card``; the round is re-run."""

    kind: ClassVar[str] = "correct-card"
    position: str
    index: int
    card: Card

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(self.kind, "index", self.index >= 0, f"must be 0 or more, got {self.index}")


@dataclass(frozen=True, kw_only=True)
class CorrectWager(SupervisorInput):
    """Set the wager ``bet`` of ``seat`` to ``amount`` as if it had been placed so; the round is re-run."""

    kind: ClassVar[str] = "correct-wager"
    seat: int
    bet: str
    amount: int

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(self.kind, "seat", self.seat >= 1, f"must be 1 or more, got {self.seat}")
        _require(self.kind, "amount", self.amount >= 0, f"must be cents >= 0, got {self.amount}")


@dataclass(frozen=True, kw_only=True)
class ConfirmRead(TrackerInput):
    """The dealer says which card a doubtful read (``read-needs-confirmation``) really was."""

    kind: ClassVar[str] = "confirm-read"
    read_id: str
    card: Card

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(self.kind, "user", bool(self.user.strip()), "a confirmation must name the user")


@dataclass(frozen=True, kw_only=True)
class RoundClose(TrackerInput):
    """Cards collected: the settled (or voided) round is closed."""

    kind: ClassVar[str] = "round-close"


# --- outputs -----------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class CardDealt(Event):
    kind: ClassVar[str] = "card-dealt"
    round_id: int
    position: str
    index: int
    card: Card
    face_up: bool
    source: CardSource
    confidence: float = 1.0
    read_id: str | None = None


@dataclass(frozen=True, kw_only=True)
class CardMoved(Event):
    """A dealt card the game moved to another hand (a blackjack split), so the hands can be rebuilt
    from ``card-dealt`` and ``card-moved`` records alone."""

    kind: ClassVar[str] = "card-moved"
    round_id: int
    card: Card
    from_position: str
    from_index: int
    position: str
    index: int


@dataclass(frozen=True, kw_only=True)
class ReadNeedsConfirmation(Event):
    kind: ClassVar[str] = "read-needs-confirmation"
    round_id: int
    read_id: str
    position: str | None
    candidates: tuple[str, ...]
    confidence: float
    source: CardSource = "shoe"


@dataclass(frozen=True, kw_only=True)
class Phase(Event):
    kind: ClassVar[str] = "phase"
    round_id: int
    phase: str


@dataclass(frozen=True, kw_only=True)
class Alarm(Event):
    kind: ClassVar[str] = "alarm"
    alarm_id: str
    code: AlarmCode
    severity: Severity
    message: str
    round_id: int | None = None


@dataclass(frozen=True, kw_only=True)
class AlarmCleared(Event):
    kind: ClassVar[str] = "alarm-cleared"
    alarm_id: str
    code: AlarmCode
    user: str
    reason: str
    round_id: int | None = None


@dataclass(frozen=True, kw_only=True)
class Refused(Event):
    """An input the tracker refused; ``input`` keeps what was sent so nothing is lost."""

    kind: ClassVar[str] = "refused"
    input_kind: str
    rule: str
    field: str
    message: str
    input: dict[str, Any] = dc_field(default_factory=dict)
    round_id: int | None = None


@dataclass(frozen=True, kw_only=True)
class RoundVoided(Event):
    kind: ClassVar[str] = "round-voided"
    round_id: int
    reason: str
    results: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True, kw_only=True)
class RoundSettled(Event):
    kind: ClassVar[str] = "round-settled"
    round_id: int
    results: tuple[dict[str, Any], ...]
    hands: dict[str, str] = dc_field(default_factory=dict)
    settings: dict[str, dict[str, tuple[str, ...]]] = dc_field(default_factory=dict)  # card codes
    corrected: bool = False


@dataclass(frozen=True, kw_only=True)
class TableState(Event):
    """What a table carries from one round to the next, written when a round closes.

    A restart restores it and replays only the inputs logged after it, so start-up does not grow
    with the table's whole history.
    """

    kind: ClassVar[str] = "table-state"
    round_id: int
    alarms: tuple[dict[str, Any], ...] = ()
    conditions: dict[str, str] = dc_field(default_factory=dict)
    alarms_raised: int = 0
    reads_seen: int = 0
    shoe_boot: int | None = None
    shoe_sequence: int = 0
    shoe_recent: dict[str, str] = dc_field(default_factory=dict)
    players: dict[str, str] = dc_field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class TableConfigured(Event):
    """The rules a tracker ran with from this record on (logged when they differ from the last)."""

    kind: ClassVar[str] = "table-config"
    game: str
    config: dict[str, Any]
    source: str = ""


INPUT_KINDS = frozenset(
    {
        "round-open",
        "wager",
        "betting-closed",
        "decision",
        "seat-player",
        "new-shoe",
        "dice",
        "dealer-reveal",
        "ack-alarm",
        "approve-void",
        "forfeit",
        "correct-card",
        "correct-wager",
        "confirm-read",
        "round-close",
        "card-read",
        "card-removed",
        "dealer-button",
        "shoe-status",
        "device-link",
        "device-alarm",
        "meta",
    }
)
