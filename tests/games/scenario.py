"""Forced-deal scenarios for game tests: a table, wagers, a card order, decisions, the settlement.

A scenario reads like a rule: build ``rules(...)``, then ``play(round, wagers, cards, decisions)``.
``play`` feeds the cards in the order given whenever the round expects one (``next_deal()``) and
otherwise applies the next scripted decision, so the same script drives games with decisions
between deals (blackjack) and games dealt all at once (poker). Amounts are dollars as text.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from dealerassist.core.cards import Card, parse_cards
from dealerassist.core.decks import load_deck
from dealerassist.core.money import parse_amount
from dealerassist.games import game_class
from dealerassist.games.base import BetLimit, Decision, GameRound, Settlement, TableRules
from dealerassist.tablefiles.paytables import load_paytables


def cents(dollars: str) -> int:
    """``"12.50"`` to 1250: scenarios write money as a dealer says it."""
    return parse_amount(dollars)


def rules(
    game: str,
    *,
    limits: Mapping[str, tuple[str, str]],
    seats: int = 7,
    deck: str | None = None,
    chip: str = "1.00",
    paytables: Mapping[str, str] | None = None,
    options: Mapping[str, Any] | None = None,
    exposure_policy: str = "void",
) -> TableRules:
    """A ``TableRules`` like ``load_table`` builds, from short literals (pay tables: file defaults)."""
    cls = game_class(game)
    shipped = load_paytables(game)
    chosen = dict(paytables or {})
    tables = {}
    for bet in cls.paid_bets():
        name = chosen.pop(bet, shipped.defaults.get(bet))
        if name is not None:
            tables[bet] = shipped.get(name)
    if chosen:
        raise ValueError(f"{game} has no bet(s) {', '.join(chosen)}")
    return TableRules(
        table_id="test-1",
        game=game,
        seats=seats,
        deck=load_deck(deck or cls.default_deck),
        chip=cents(chip),
        limits={bet: BetLimit(cents(low), cents(high)) for bet, (low, high) in limits.items()},
        paytables=tables,
        options=dict(options or {}),
        exposure_policy=exposure_policy,  # type: ignore[arg-type]
    )


def new_round(table: TableRules) -> GameRound:
    return game_class(table.game)(table).new_round()


def wager(round_: GameRound, wagers: Iterable[tuple[int, str, str]]) -> None:
    """Place ``(seat, bet, dollars)`` wagers, then close betting."""
    for seat, bet, dollars in wagers:
        round_.place_wager(seat, bet, cents(dollars))
    round_.close_betting()


def run(round_: GameRound, cards: str, decisions: Iterable[Decision] = ()) -> None:
    """Deal ``cards`` (``"AS KD 10h"``) whenever a card is expected, else apply the next decision.

    Stops when the round expects a card the script does not have, so a test can look at the round
    mid-way; raises ``AssertionError`` when cards are left over (``play`` also insists the round is
    complete): a scenario must say exactly what happens.
    """
    deck = list(parse_cards(cards))
    pending = list(decisions)
    while True:
        if round_.next_deal() is not None:
            if not deck:
                break
            round_.deal(deck.pop(0))
        elif pending:
            round_.decide(pending.pop(0))
        else:
            break
    assert not deck, f"cards left over: {' '.join(c.code for c in deck)}"


def play(
    table: TableRules,
    wagers: Iterable[tuple[int, str, str]],
    cards: str,
    decisions: Iterable[Decision] = (),
) -> Settlement:
    """A whole round from the script: wagers, cards, decisions; returns its settlement."""
    round_ = new_round(table)
    wager(round_, wagers)
    run(round_, cards, decisions)
    waiting = round_.pending_decisions()
    assert round_.complete, f"round not complete: phase {round_.phase}, waiting on {waiting}"
    return round_.settle()


def results(settlement: Settlement) -> dict[tuple[str, str], tuple[str, int, int]]:
    """``{(position, bet): (outcome, win, returned)}`` for compact assertions."""
    return {(r.position, r.bet): (r.outcome, r.win, r.returned) for r in settlement.results}


def shuffled(table: TableRules, seed: int) -> list[Card]:
    """The table's whole deck (or shoe) in a seeded random order."""
    cards = table.deck.cards()
    random.Random(seed).shuffle(cards)
    return cards


def play_out(round_: GameRound, shoe: list[Card], choose: Callable[[str, Sequence[str]], Decision]) -> None:
    """Deal from ``shoe`` and ask ``choose(position, legal_actions)`` for every decision until the
    round is complete (property tests: random but legal play)."""
    while not round_.complete:
        if round_.next_deal() is not None:
            round_.deal(shoe.pop())
            continue
        pending = round_.pending_decisions()
        assert pending, f"round stuck in phase {round_.phase}: no card expected and no decision pending"
        position = pending[0]
        round_.decide(choose(position, round_.legal_actions(position)))


def assert_consistent(settlement: Settlement, chip: int) -> None:
    """What every settled wager must satisfy whatever the game: money flows match the outcome,
    nothing is negative, rounding never withholds a whole chip."""
    for r in settlement.results:
        where = f"{r.position} {r.bet}"
        assert r.win >= 0 and r.stake >= 0, where
        assert 0 <= r.remainder < chip, where
        if r.outcome == "win":
            assert r.returned == r.stake and (r.win > 0 or r.remainder > 0 or r.stake == 0), where
        elif r.outcome in ("push", "void"):
            assert (r.win, r.returned) == (0, r.stake), where
        else:
            assert (r.win, r.returned) == (0, 0), where
