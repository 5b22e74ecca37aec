"""Whatever a client sends to the action API, the answer is a 2xx or a 4xx naming a field, never a 500."""

from __future__ import annotations

from pathlib import Path

from dashboard_fixtures import TCP, make_dashboard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealerassist.tablefiles.tables import load_table
from dealerassist.web.actions import ACTIONS, client_fields

FIELDS = sorted({name for kind in ACTIONS for name in client_fields(kind)} | {"seat", "bogus"})
values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["AS", "10h", "JK", "seat-1", "dealer", "seat-9.2", "play", "fold", "ante", "$5", "1e9"]),
    st.lists(st.sampled_from(["AS", "KD", "zz", 3]), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
bodies = st.dictionaries(st.sampled_from(FIELDS), values, max_size=5)


def test_random_bodies_never_cause_a_server_error(tmp_path: Path) -> None:
    board = make_dashboard(tmp_path, [load_table("three-card-poker")])
    boss = board.client("sam")
    boss.act(TCP, "round-open")
    boss.act(TCP, "wager", seat=1, bet="ante", amount=1000)
    boss.act(TCP, "betting-closed")
    board.shoe(TCP, "AS", "KS", "QS")  # seat 1's cards; the dealer's are still to come

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(kind=st.sampled_from(sorted(ACTIONS)), body=bodies)
    def check(kind: str, body: dict) -> None:
        response = boss.act(TCP, kind, **body)
        assert response.status_code < 500, (kind, body, response.get_json())
        if response.status_code >= 400:
            reply = response.get_json()
            assert reply["field"] and reply["message"]

    check()
    assert board.client("sam").get("/status").status_code == 200
