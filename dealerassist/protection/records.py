"""From the event log to what game protection reads: rounds with their cards, wagers and decisions.

The only module of the package that knows the log. It folds records (in log order) into one
``RoundRecord`` per table and round, with the rules the tracker ran under (the last ``table-config``
record before the round). Rounds are rebuilt, never stored, so the log stays the only record.

A multi-deck shoe's shuffle is a ``meta`` record whose data holds ``{"shoe": "shuffled"}`` (what the
simulated dealers send when they start a new shoe) or a dealer's ``new-shoe`` action; the count
starts again at the next round.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from dealerassist.core.cards import Card
from dealerassist.core.decks import load_deck
from dealerassist.games.base import DEALER, BetLimit, TableRules, parse_position, seat_position
from dealerassist.protection.decisions import DecisionPoint
from dealerassist.storage.eventlog import EventLog, LogRecord
from dealerassist.tablefiles.paytables import load_paytables

SHUFFLE = {"shoe": "shuffled"}
# Dealer cards the players see by rule although the shoe dealt them face down.
TURNED_BY_RULE = {"pairs-and-up": frozenset({0})}
INCIDENT_ALARMS = ("exposed-dealer-card", "misdeal")


@dataclass
class Dealt:
    card: Card
    face_up: bool


@dataclass
class RoundRecord:
    """One round as the log tells it."""

    table: str
    round_id: int
    rules: TableRules | None
    dealer: str = ""
    opened_at: str = ""
    shuffled_before: bool = False
    outcome: str = "open"
    wagers: dict[int, dict[str, int]] = field(default_factory=dict)
    cards: dict[tuple[str, int], Dealt] = field(default_factory=dict)
    decisions: list[DecisionPoint] = field(default_factory=list)
    alarms: list[str] = field(default_factory=list)
    corrections: int = 0
    overrides: int = 0  # supervisors' jackpot (progressive meter) corrections while the round was the table's
    players: dict[int, str] = field(default_factory=dict)  # seat -> the player id the dealer entered

    @property
    def game(self) -> str:
        return self.rules.game if self.rules else ""

    def position_cards(self, position: str) -> tuple[Card, ...]:
        return tuple(d.card for (pos, _), d in sorted(self.cards.items()) if pos == position)

    def all_cards(self) -> list[Card]:
        return [d.card for d in self.cards.values()]

    def main_bet(self, seat: int, bet: str) -> int:
        return self.wagers.get(seat, {}).get(bet, 0)


def rules_from_config(game: str, config: dict[str, Any]) -> TableRules:
    """The ``TableRules`` a ``table-config`` record describes (pay tables and deck by name)."""
    tables = load_paytables(game)
    return TableRules(
        table_id=str(config.get("table_id", "")),
        game=game,
        seats=int(config.get("seats", 7)),
        deck=load_deck(str(config["deck"])),
        chip=int(config.get("chip", 100)),
        limits={bet: BetLimit(int(lo), int(hi)) for bet, (lo, hi) in config.get("limits", {}).items()},
        paytables={bet: tables.get(name) for bet, name in config.get("paytables", {}).items()},
        options=dict(config.get("options", {})),
        exposure_policy=config.get("exposure_policy", "void"),
    )


class _Folder:
    """Folds one table's records into rounds."""

    def __init__(self, table: str) -> None:
        self.table = table
        self.rules: TableRules | None = None
        self.current: RoundRecord | None = None
        self.shuffle_pending = False
        self.rounds: dict[int, RoundRecord] = {}
        self.players: dict[int, str] = {}  # seat -> player id, as the dealer last entered it

    def round_of(self, round_id: int | None) -> RoundRecord | None:
        if round_id is None:
            return self.current
        found = self.rounds.get(round_id)
        if found is None:
            found = self.rounds[round_id] = RoundRecord(self.table, round_id, self.rules)
            found.shuffled_before, self.shuffle_pending = self.shuffle_pending, False
        self.current = found
        return found

    def fold(self, record: LogRecord) -> None:
        event = record.event
        data = event.to_dict()
        kind = event.kind
        if kind == "table-config":
            self.rules = rules_from_config(data["game"], data["config"])
            return
        if kind == "new-shoe" or (
            kind == "meta" and all(data["data"].get(k) == v for k, v in SHUFFLE.items())
        ):
            self.shuffle_pending = True
            return
        if kind == "meta":
            return
        if kind == "seat-player":
            self._seat_player(data["seat"], data["player"])
            return
        if kind == "progressive-correction":
            if data.get("user", "") not in ("", "tracker") and self.current is not None:
                self.current.overrides += 1  # a supervisor's hand on the jackpot, not a void's give-back
            return
        round_ = self.round_of(data.get("round_id"))
        if round_ is None:
            return
        if kind == "phase" and data["phase"] == "betting" and not round_.opened_at:
            round_.opened_at = record.recorded_at
        elif kind in ("wager", "correct-wager"):
            round_.wagers.setdefault(data["seat"], {})[data["bet"]] = data["amount"]
            if data["seat"] in self.players:
                round_.players[data["seat"]] = self.players[data["seat"]]
            if kind == "wager" and data.get("role") == "dealer" and not round_.dealer:
                round_.dealer = data.get("user", "")
            round_.corrections += kind == "correct-wager"
        elif kind == "betting-closed" and not round_.dealer and data.get("role") == "dealer":
            round_.dealer = data.get("user", "")
        elif kind == "card-dealt":
            round_.cards[(data["position"], data["index"])] = Dealt(Card.parse(data["card"]), data["face_up"])
        elif kind == "correct-card":
            round_.corrections += 1
        elif kind == "decision":
            self._decision(round_, data)
        elif kind == "alarm":
            round_.alarms.append(data["code"])
        elif kind == "round-settled":
            round_.outcome = "settled"
        elif kind == "round-voided":
            round_.outcome = "voided"

    def _seat_player(self, seat: int, player: str) -> None:
        """The seat's player from now on; also of the open round's wager there, if any."""
        if player:
            self.players[seat] = player
        else:
            self.players.pop(seat, None)
        round_ = self.current
        if round_ is not None and round_.outcome == "open" and seat in round_.wagers:
            if player:
                round_.players[seat] = player
            else:
                round_.players.pop(seat, None)

    def _decision(self, round_: RoundRecord, data: dict[str, Any]) -> None:
        place = parse_position(data["position"])
        if place is None:
            return
        split_before = any(d.seat == place[0] and d.action == "split" for d in round_.decisions)
        turned = TURNED_BY_RULE.get(round_.game, frozenset())
        dealer = sorted(((i, d) for (pos, i), d in round_.cards.items() if pos == DEALER), key=lambda x: x[0])
        up = tuple(d.card for i, d in dealer if d.face_up or i in turned)
        hidden = tuple(d.card for i, d in dealer if not (d.face_up or i in turned))
        round_.decisions.append(
            DecisionPoint(
                table=self.table,
                round_id=round_.round_id,
                seat=place[0],
                position=data["position"],
                cards=round_.position_cards(data["position"]),
                dealer_up=up,
                dealer_hidden=hidden,
                wagers=dict(round_.wagers.get(place[0], {})),
                action=data["action"],
                amount=data.get("amount"),
                choice=data.get("choice"),
                split_hand=split_before or place[1] > 1,
            )
        )
        if data["action"] == "split":
            self._split(round_, data["position"], place[0])

    @staticmethod
    def _split(round_: RoundRecord, position: str, seat: int) -> None:
        """A split moves the pair's second card to the second hand, where the game keeps it (the
        first hand's next card is logged at the same index)."""
        moved = round_.cards.pop((position, 1), None)
        if moved is not None:
            round_.cards[(seat_position(seat, 2), 0)] = moved


class RoundFolder:
    """``fold_rounds`` in steps: records fed in log order as they come, the rounds read at any time.

    ``forget`` drops rounds no longer wanted (a reader that keeps a bounded window); a later
    record of a forgotten round (a late correction) is ignored rather than starting a round
    without its cards.
    """

    def __init__(self) -> None:
        self._folders: dict[str, _Folder] = {}
        self._forgotten: dict[str, int] = {}  # table -> highest round id forgotten

    def fold(self, record: LogRecord) -> None:
        table = record.event.table
        round_id = getattr(record.event, "round_id", None)
        if isinstance(round_id, int) and round_id <= self._forgotten.get(table, 0):
            return
        folder = self._folders.get(table)
        if folder is None:
            folder = self._folders[table] = _Folder(table)
        folder.fold(record)

    def rounds(self) -> list[RoundRecord]:
        found = [r for folder in self._folders.values() for r in folder.rounds.values()]
        return sorted(found, key=lambda r: (r.table, r.round_id))

    def forget(self, table: str, before: int) -> None:
        """Drop ``table``'s rounds numbered below ``before``."""
        folder = self._folders.get(table)
        if folder is None:
            return
        for round_id in [i for i in folder.rounds if i < before]:
            del folder.rounds[round_id]
            self._forgotten[table] = max(self._forgotten.get(table, 0), round_id)


def fold_rounds(records: Iterable[LogRecord]) -> list[RoundRecord]:
    """Every round of every table in the records, in the order they were opened."""
    folder = RoundFolder()
    for record in records:
        folder.fold(record)
    return folder.rounds()


def read_rounds(log: EventLog, since: str | None = None, until: str | None = None) -> list[RoundRecord]:
    """The rounds of a log between two ISO times (``recorded_at``), rules included.

    The rules of each table are read from its whole history up to the window, so a window that
    starts after the last ``table-config`` record still knows the game.
    """
    rounds = fold_rounds(_window(log, since, until))
    if since is None:
        return rounds
    return [r for r in rounds if r.opened_at >= since]  # a round begun before the window is not whole


def _window(log: EventLog, since: str | None, until: str | None) -> Iterator[LogRecord]:
    for record in log.records():
        if until is not None and record.recorded_at >= until:
            return
        if (
            since is not None
            and record.recorded_at < since
            and record.event.kind not in ("table-config", "meta", "new-shoe", "seat-player")
        ):
            continue
        yield record
