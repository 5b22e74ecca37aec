"""What the dealer and supervisor screens show, built from ``tracker.snapshot()``.

The snapshot is the tracker's plain-data view of the open round; this module arranges it by seat
the way a dealer reads a layout (seat 1 at the dealer's left), adds the pay-out sums a dealer hands
over in chips, and decides which controls make sense in the current phase.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from dealerassist.core.cards import Card
from dealerassist.core.money import format_amount
from dealerassist.games.base import DEALER, parse_position
from dealerassist.hands import blackjack_total
from dealerassist.tracker.events import PLAYER_ID_LENGTH
from dealerassist.web.runtime import runtime
from dealerassist.web.views import audience

# Decisions that carry a wager amount the dealer may need to enter (else the game's default).
AMOUNT_ACTIONS = frozenset({"double", "split", "insurance", "raise"})
# Decisions that need cards named (pai gow: the two-card hand the player sets).
CARDS_ACTIONS = frozenset({"set-hand"})
# Bets placed by a decision after the deal, never at betting time.
DECISION_BETS = frozenset({"play"})


def decision_choices(game: str, action: str) -> list[str]:
    """The hands a decision must name (Pairs & Up: which hand the Play is on), else none."""
    if game == "pairs-and-up" and action == "play":
        from dealerassist.games.pairs_and_up import HANDS

        return list(HANDS)
    return []


def live_hand_name(game: str, cards: list[CardView], *, split: bool = False) -> str:
    """What a dealer says while a blackjack hand is played (the settlement names the others).

    Only face-up cards count: a hole card is never added in, so the screen cannot give it away.
    """
    if game != "perfect-pairs-blackjack":
        return ""
    shown = [Card.parse(c.code) for c in cards if c.face_up]
    if not shown:
        return ""
    total = blackjack_total(shown, split=split)
    if total.blackjack:
        return "blackjack"
    text = f"{'soft ' if total.soft else ''}{total.total}"
    if total.bust:
        return f"bust {text}"
    return text if len(shown) == len(cards) else f"showing {text}"


def snapshot_of(table: str) -> dict[str, Any]:
    """The table's snapshot as the signed-in role may see it (never the raw one)."""
    return audience(table).snapshot(runtime().pit.tracker(table).snapshot())


@dataclass
class CardView:
    code: str
    face_up: bool
    confidence: float = 1.0
    source: str = ""

    @property
    def doubtful(self) -> bool:
        return self.confidence < 1.0 and self.source == "camera"


@dataclass
class ResultView:
    bet: str
    stake: int
    outcome: str
    win: int
    returned: int
    hand: str
    note: str
    remainder: str
    earned_by: str = ""  # the other hand that earned a stake-less bonus (Envy)

    @property
    def label(self) -> str:
        """The bet as the dealer reads it; a bonus names the hand that earned it."""
        return f"{self.bet} ({self.earned_by})" if self.earned_by else self.bet

    @property
    def to_pay(self) -> int:
        return self.win + self.returned

    @property
    def withheld(self) -> bool:
        return Fraction(self.remainder or "0") != 0


@dataclass
class HandView:
    position: str
    cards: list[CardView] = field(default_factory=list)
    hand_name: str = ""
    actions: list[str] = field(default_factory=list)
    next_card: bool = False
    choices: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class SeatView:
    seat: int
    hands: list[HandView] = field(default_factory=list)
    wagers: dict[str, int] = field(default_factory=dict)
    results: list[ResultView] = field(default_factory=list)
    jackpots: list[dict[str, Any]] = field(default_factory=list)
    player: str = ""  # the player id the dealer entered for the seat

    @property
    def to_pay(self) -> int:
        return sum(r.to_pay for r in self.results)

    @property
    def active(self) -> bool:
        return bool(self.wagers or self.results or any(h.cards for h in self.hands))


@dataclass
class TableView:
    table: str
    name: str
    game: str
    snapshot: dict[str, Any]
    seats: list[SeatView]
    dealer: HandView
    bets: list[str]
    seat_count: int
    chip: int
    progressive: dict[str, Any] | None = None

    @property
    def round_id(self) -> int | None:
        return self.snapshot.get("round_id") or None

    @property
    def status(self) -> str:
        return str(self.snapshot.get("status", "idle"))

    @property
    def phase(self) -> str:
        return str(self.snapshot.get("phase", ""))

    @property
    def round_open(self) -> bool:
        return self.status == "open"

    @property
    def betting(self) -> bool:
        return self.round_open and self.phase == "betting"

    @property
    def can_open(self) -> bool:
        return self.status in ("idle", "closed")

    @property
    def can_close(self) -> bool:
        return self.status in ("settled", "voided")

    @property
    def can_reveal(self) -> bool:
        return (
            self.round_open
            and not self.betting
            and not self.snapshot.get("revealed")
            and not self.snapshot.get("pending_decisions")
            and self.snapshot.get("next_deal") is None
            and self.phase not in ("dice", "complete", "settled")
            and self.dealer.cards != []
        )

    @property
    def wants_dice(self) -> bool:
        return self.round_open and self.phase == "dice"

    @property
    def alarms(self) -> list[dict[str, Any]]:
        return list(self.snapshot.get("alarms") or [])

    @property
    def pending_reads(self) -> list[dict[str, Any]]:
        return list(self.snapshot.get("pending_reads") or [])

    @property
    def settlement(self) -> dict[str, Any] | None:
        return self.snapshot.get("settlement")

    @property
    def total_to_pay(self) -> int:
        return sum(s.to_pay for s in self.seats)

    @property
    def next_deal_text(self) -> str:
        step = self.snapshot.get("next_deal")
        if not step:
            return ""
        face = "face up" if step.get("face_up", True) else "face down"
        return f"next card: {step.get('position')} card {int(step.get('index', 0)) + 1}, {face}"

    def money(self, cents: int) -> str:
        return format_amount(cents)

    @property
    def player_id_length(self) -> int:
        return PLAYER_ID_LENGTH

    @staticmethod
    def needs_amount(action: str) -> bool:
        return action in AMOUNT_ACTIONS

    @staticmethod
    def needs_cards(action: str) -> bool:
        return action in CARDS_ACTIONS


def _cards(entries: list[Mapping[str, Any]]) -> list[CardView]:
    return [
        CardView(
            str(c.get("card", "")),
            bool(c.get("face_up", True)),
            float(c.get("confidence", 1.0)),
            str(c.get("source", "")),
        )
        for c in sorted(entries, key=lambda c: int(c.get("index", 0)))
    ]


def dealer_view(table: str) -> TableView:
    """Everything the dealer screen of ``table`` shows, seat by seat."""
    rt = runtime()
    snap = snapshot_of(table)
    config = rt.tables[table]
    rules = config.rules
    positions: Mapping[str, list[Mapping[str, Any]]] = snap.get("positions") or {}
    hands_named: Mapping[str, str] = snap.get("hands") or {}
    legal: Mapping[str, list[str]] = snap.get("legal_actions") or {}
    next_pos = (snap.get("next_deal") or {}).get("position")
    seats = {n: SeatView(n) for n in range(1, rules.seats + 1)}
    dealer_cards = _cards(list(positions.get(DEALER, [])))
    dealer = HandView(
        DEALER, dealer_cards, str(hands_named.get(DEALER, "")) or live_hand_name(rules.game, dealer_cards)
    )
    dealer.next_card = next_pos == DEALER
    dealer.actions = list(legal.get(DEALER, []))
    for position in sorted(set(positions) | set(legal) | set(hands_named)):
        if position == DEALER:
            continue
        try:
            parsed = parse_position(position)
        except ValueError:
            continue
        if parsed is None or parsed[0] not in seats:
            continue
        actions = list(legal.get(position, []))
        cards = _cards(list(positions.get(position, [])))
        choices = {a: decision_choices(rules.game, a) for a in actions}
        seats[parsed[0]].hands.append(
            HandView(
                position,
                cards,
                str(hands_named.get(position, ""))
                or live_hand_name(rules.game, cards, split=_was_split(parsed[0], positions)),
                actions,
                next_pos == position,
                {a: names for a, names in choices.items() if names},
            )
        )
    for seat_text, bets in (snap.get("wagers") or {}).items():
        if str(seat_text).isdigit() and int(seat_text) in seats:
            seats[int(seat_text)].wagers = {str(b): int(a) for b, a in bets.items()}
    for seat_text, player in (snap.get("players") or {}).items():
        if str(seat_text).isdigit() and int(seat_text) in seats:
            seats[int(seat_text)].player = str(player)
    for r in (snap.get("settlement") or {}).get("results", []):
        result_seat = int(r.get("seat", 0))
        if result_seat in seats:
            seats[result_seat].results.append(
                ResultView(
                    str(r.get("bet")),
                    int(r.get("stake", 0)),
                    str(r.get("outcome")),
                    int(r.get("win", 0)),
                    int(r.get("returned", 0)),
                    str(r.get("hand", "")),
                    str(r.get("note", "")),
                    str(r.get("remainder", "0")),
                    str(r.get("earned_by", "")),
                )
            )
    for seat in seats.values():
        if not seat.hands:
            seat.hands.append(HandView(f"seat-{seat.seat}"))
    bets = [b for b in (list(rules.limits) or _game_bets(rules.game)) if b not in DECISION_BETS]
    controller = rt.progressive_for(table)
    progressive = controller.state() if controller is not None else None
    if progressive is not None:
        for hit in progressive.get("hits", []):
            hit_seat = int(hit.get("seat", 0))
            if (
                hit.get("table") == table
                and hit.get("round_id") == snap.get("round_id")
                and hit_seat in seats
            ):
                pending = hit.get("hit_id") in progressive.get("pending", [])
                seats[hit_seat].jackpots.append({**hit, "pending": pending})
    return TableView(
        table=table,
        name=rt.table_name(table),
        game=rules.game,
        snapshot=snap,
        seats=list(seats.values()),
        dealer=dealer,
        bets=bets,
        seat_count=rules.seats,
        chip=rules.chip,
        progressive=progressive,
    )


def _was_split(seat: int, positions: Mapping[str, Any]) -> bool:
    """A seat holding a second hand (``seat-3.2``) split its first: no blackjack on either."""
    return any(p.startswith(f"seat-{seat}.") for p in positions)


def _game_bets(slug: str) -> tuple[str, ...]:
    from dealerassist.games import game_class

    return tuple(game_class(slug).bets)


def supervisor_view() -> list[TableView]:
    """Every table, always in the same order: what needs the supervisor is summarised above them,
    so a table card never moves under a finger or a field being typed in."""
    return [dealer_view(t) for t in runtime().table_ids()]
