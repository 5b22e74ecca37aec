"""Any sequence of inputs, sensible or not: a refused input changes nothing, the chain holds, and a
tracker rebuilt from the log is the live tracker."""

from __future__ import annotations

from typing import Any

from highcard_game import high_card_rules
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealerassist.core.cards import FULL_DECK
from dealerassist.errors import DealerAssistError
from dealerassist.storage.eventlog import EventLog
from dealerassist.tracker import Tracker

TABLE = "hc-1"
cards = st.sampled_from([c.code for c in FULL_DECK] + ["JK", "ZZ"])
positions = st.sampled_from(["seat-1", "seat-2", "seat-3", "seat-9", "dealer", "nowhere"])
roles = st.sampled_from(["dealer", "supervisor"])
inputs = st.one_of(
    st.just({"kind": "round-open"}),
    st.just({"kind": "betting-closed"}),
    st.just({"kind": "round-close"}),
    st.just({"kind": "dealer-reveal"}),
    st.builds(
        lambda seat, amount: {"kind": "wager", "seat": seat, "bet": "ante", "amount": amount, "user": "d"},
        st.integers(0, 8),
        st.sampled_from([-5, 0, 100, 500, 1000, 70_000]),
    ),
    st.builds(
        lambda card, conf: {"kind": "card-read", "source": "shoe", "card": card, "confidence": conf},
        cards,
        st.sampled_from([1.0, 0.5]),
    ),
    st.builds(
        lambda source, card, pos, up: {
            "kind": "card-read",
            "source": source,
            "card": card,
            "position": pos,
            "face_up": up,
        },
        st.sampled_from(["camera", "manual"]),
        cards,
        positions,
        st.booleans(),
    ),
    st.builds(
        lambda seat, action, amount: {
            "kind": "decision",
            "position": f"seat-{seat}",
            "action": action,
            "amount": amount,
        },
        st.integers(1, 3),
        st.sampled_from(["fold", "raise", "dance"]),
        st.sampled_from([None, 500, 1000]),
    ),
    st.builds(
        lambda n, card: {"kind": "confirm-read", "read_id": f"{TABLE}:R{n}", "card": card, "user": "d"},
        st.integers(1, 3),
        cards,
    ),
    st.builds(
        lambda n, role: {
            "kind": "ack-alarm",
            "alarm_id": f"{TABLE}:A{n}",
            "user": "s",
            "role": role,
            "reason": "r",
        },
        st.integers(1, 3),
        roles,
    ),
    st.builds(lambda role: {"kind": "approve-void", "user": "s", "role": role, "reason": "r"}, roles),
    st.builds(
        lambda pos, card, role: {
            "kind": "correct-card",
            "position": pos,
            "index": 0,
            "card": card,
            "user": "s",
            "role": role,
            "reason": "r",
        },
        positions,
        cards,
        roles,
    ),
    st.builds(lambda up: {"kind": "device-link", "device": "shoe", "up": up}, st.booleans()),
    st.just({"kind": "round-settled", "round_id": 1, "results": []}),
)


OPENING = [
    {"kind": "round-open"},
    {"kind": "wager", "seat": 1, "bet": "ante", "amount": 500, "user": "d"},
    {"kind": "wager", "seat": 2, "bet": "ante", "amount": 1000, "user": "d"},
    {"kind": "betting-closed"},
]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.booleans(),
    st.sampled_from(["void", "flag"]),
    st.booleans(),
    st.lists(inputs, min_size=1, max_size=40),
)
def test_refusals_change_nothing_and_the_log_rebuilds_the_table(
    opened: bool, policy: str, camera_checks: bool, sequence: list[dict[str, Any]]
) -> None:
    """Half the runs start inside a round that is being dealt, so deep states are reached often;
    both exposure policies and both camera roles (checking the shoe, or dealing) are covered."""
    sequence = OPENING + sequence if opened else sequence
    log = EventLog(":memory:")
    rules = high_card_rules(TABLE, exposure_policy=policy, options={"camera_must_match_shoe": camera_checks})
    tracker = Tracker(rules, log)
    for data in sequence:
        before, rows = tracker.snapshot(), log.last_seq()
        try:
            tracker.handle_data({"table": TABLE, **data})
        except DealerAssistError:
            assert tracker.snapshot() == before
            assert log.last_seq() == rows + 1
    assert log.verify().ok
    assert Tracker(rules, log).snapshot() == tracker.snapshot()
    log.close()
