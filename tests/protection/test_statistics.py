"""The protection statistics against brute force, and the count and dealer tests on known rounds."""

from __future__ import annotations

import random
from itertools import product
from math import comb

import pytest

from dealerassist.core.cards import parse_cards
from dealerassist.protection.counting import counting_test, counts_before, hi_lo
from dealerassist.protection.dealers import dealer_tests
from dealerassist.protection.records import Dealt, RoundRecord
from dealerassist.protection.stats import PoissonBinomial, binomial_upper, rank_correlation
from dealerassist.tablefiles.tables import load_table


def test_poisson_binomial_tail_is_the_brute_force_sum() -> None:
    probabilities = [0.1, 0.5, 0.93, 0.3, 0.77, 0.0, 1.0]
    dist = PoissonBinomial()
    for p in probabilities:
        dist.add(p)
    for k in range(len(probabilities) + 2):
        brute = 0.0
        for outcome in product((0, 1), repeat=len(probabilities)):
            if sum(outcome) >= k:
                weight = 1.0
                for hit, p in zip(outcome, probabilities, strict=True):
                    weight *= p if hit else 1 - p
                brute += weight
        assert dist.upper_tail(k) == pytest.approx(brute, abs=1e-12)
    with pytest.raises(ValueError):
        dist.add(1.5)


def test_binomial_tail_is_exact() -> None:
    for n, p in ((10, 0.2), (40, 0.05)):
        for k in range(n + 1):
            brute = sum(comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))
            assert binomial_upper(k, n, p) == pytest.approx(brute, rel=1e-9)


def test_rank_correlation_sees_a_rising_series_and_not_noise() -> None:
    rng = random.Random(1)
    x = [rng.gauss(0, 1) for _ in range(200)]
    assert rank_correlation(x, [v + rng.gauss(0, 0.5) for v in x]).p_value < 1e-10
    noise = rank_correlation(x, [rng.choice((1, 2, 5)) for _ in x])
    assert abs(noise.rho) < 0.2 and noise.p_value > 0.01
    assert rank_correlation(x, [3] * len(x)).p_value == 1.0


def shoe_round(round_id: int, cards: str, bet: int = 0, *, shuffled: bool = False) -> RoundRecord:
    rules = load_table("perfect-pairs-blackjack").rules
    r = RoundRecord("ppbj-1", round_id, rules, dealer="d1", shuffled_before=shuffled, outcome="settled")
    r.cards = {("dealer", i): Dealt(card, True) for i, card in enumerate(parse_cards(cards))}
    if bet:
        r.wagers = {1: {"main": bet}}
    return r


def test_the_count_restarts_at_the_shuffle_record_and_true_count_divides_by_decks_left() -> None:
    rounds = [
        shoe_round(1, "2S 3S 4S 5S", shuffled=True),
        shoe_round(2, "KS AH 7D"),
        shoe_round(3, "6C", shuffled=True),
        shoe_round(4, "9C"),
    ]
    counts = counts_before(rounds)
    assert [counts[i].running for i in (1, 2, 3, 4)] == [0, 4, 0, 1]
    assert counts[2].true_count == pytest.approx(4 / ((312 - 4) / 52))
    assert [hi_lo(c) for c in parse_cards("2S 6H 7D 9C 10S AS")] == [1, 1, 0, 0, -1, -1]


def test_a_round_the_shoe_could_not_hold_proves_an_unrecorded_shuffle() -> None:
    six_aces = " ".join(["AS"] * 6)
    rounds = [shoe_round(1, six_aces, shuffled=True), shoe_round(2, "AS 2C"), shoe_round(3, "3C")]
    counts = counts_before(rounds)
    assert 2 not in counts  # unknown: the shoe was new somewhere before this round
    assert counts[3].running == 0  # -1 (AS) + 1 (2C)


def test_bets_following_the_count_correlate() -> None:
    low = [f"{rank}{suit}" for rank in "23456" for suit in "SHDC"] * 2  # the count rises by one a round
    rounds = [shoe_round(i + 1, low[i], 10) for i in range(30)]
    rounds[0].shuffled_before = True
    counted = counting_test(rounds, counts_before(rounds), lambda r: (1,), "main")
    assert counted.p_value == 1.0  # a flat bet follows nothing
    rising = [shoe_round(i + 1, low[i], 10 * (1 + i // 5)) for i in range(30)]
    rising[0].shuffled_before = True
    assert counting_test(rising, counts_before(rising), lambda r: (1,), "main").p_value < 1e-6


def test_a_dealer_with_many_exposures_stands_out_against_the_floor() -> None:
    rules = load_table("three-card-poker").rules
    rounds = []
    for i in range(400):
        dealer = ("anna", "ben", "carl", "dora")[i % 4]
        r = RoundRecord("tcp-1", i + 1, rules, dealer=dealer, outcome="settled")
        if (dealer == "dora" and i % 8 == 3) or i in (0, 101, 202):
            r.alarms.append("exposed-dealer-card")
            r.outcome = "voided"
        rounds.append(r)
    tests = {(t.dealer, t.incident): t for t in dealer_tests(rounds)}
    dora = tests[("dora", "exposure")]
    assert dora.count == 50 and dora.rounds == 100 and dora.p_value < 1e-20
    assert tests[("anna", "exposure")].p_value > 0.5
    assert (4, 102) not in dora.evidence and ("tcp-1", 4) in dora.evidence


def test_rounds_before_the_first_shuffle_have_no_known_count() -> None:
    rounds = [shoe_round(1, "2S"), shoe_round(2, "3S", shuffled=True), shoe_round(3, "4S")]
    assert sorted(counts_before(rounds)) == [2, 3]
    assert counts_before(rounds)[3].running == 1
