"""Live panels kept per state: each session still gets its own CSRF token, each role its own
drawing, and a change of state is never answered with the panel from before it."""

from __future__ import annotations

import re

from dashboard_fixtures import TCP, Dashboard

from dealerassist.web.panels import EXTENSION

TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


def _tokens(html: str) -> set[str]:
    return set(TOKEN.findall(html))


def test_each_session_gets_its_own_token_in_a_kept_panel(dash: Dashboard) -> None:
    first, second = dash.client("sam"), dash.client("sam")
    assert first.act(TCP, "round-open").status_code == 200  # the round's forms carry the token
    one = first.get("/supervisor/panel").get_data(as_text=True)
    two = second.get("/supervisor/panel").get_data(as_text=True)
    placeholder = dash.app.extensions[EXTENSION].placeholder
    assert placeholder not in one and placeholder not in two
    assert _tokens(one) == {first.csrf} and _tokens(two) == {second.csrf} and first.csrf != second.csrf
    assert TOKEN.sub("", one) == TOKEN.sub("", two)  # the same drawing, kept once


def test_a_changed_state_is_drawn_afresh_and_roles_are_kept_apart(dash: Dashboard) -> None:
    dealer, supervisor = dash.client("dana"), dash.client("sam")
    before = dealer.get(f"/tables/{TCP}/panel").get_data(as_text=True)
    assert 'data-kind="round-open"' in before
    assert dealer.act(TCP, "round-open").status_code == 200
    after = dealer.get(f"/tables/{TCP}/panel").get_data(as_text=True)
    assert 'data-phase="betting"' in after and 'data-kind="round-open"' not in after
    assert dealer.act(TCP, "wager", seat=3, bet="ante", amount="15").status_code == 200
    assert "$15.00" in dealer.get(f"/tables/{TCP}/panel").get_data(as_text=True)
    # The same table for the supervisor: same data, other role, its own entry.
    assert "$15.00" in supervisor.get(f"/tables/{TCP}/panel").get_data(as_text=True)
    roles = {key[1] for key in dash.app.extensions[EXTENSION]._drawn}
    assert roles == {"dealer", "supervisor"}
