"""Every route, query parameter, header and action field, driven with hostile values as each role:
the answer is never a 500 and never echoes an exception (the inputs the review found are pinned)."""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
from dashboard_fixtures import TCP, Dashboard, Session, make_dashboard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealerassist.tablefiles.tables import load_table
from dealerassist.web.actions import ACTIONS, client_fields

ROLES = (None, "dana", "sam", "sue", "ada")
HOSTILE = [
    "²",
    "٣",
    "0" * 30,
    "9" * 5000,
    "\x00",
    "a\x00b",
    "../../etc/passwd",
    "-1",
    "--5",
    "+-5",
    "1e999",
    "NaN",
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    "",
    " ",
    TCP,
    "seat-1",
    "dealer",
]
texts = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=40))
PARAMS = sorted(
    {
        "after",
        "limit",
        "table",
        "seat",
        "game",
        "outcome",
        "since",
        "until",
        "voids",
        "alarms",
        "next",
        "name",
        "from",
        "to",
    }
)
FIELDS = sorted(
    {name for kind in ACTIONS for name in client_fields(kind)}
    | {"meter", "hit_id", "reason", "op"}
    | {"flag", "action", "note", "from", "to"}
)
# Sign-out ends the session the other examples need; it is covered on its own.
SKIPPED = {"/logout", "/static/<path:filename>"}
_EXCEPTION_TEXT = re.compile(r"Traceback|Error\(|sqlite3\.|OverflowError|ValueError|RecursionError")


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory) -> Dashboard:
    tmp: Path = tmp_path_factory.mktemp("hostile")
    (tmp / "snaps").mkdir()
    return make_dashboard(
        tmp,
        [load_table("three-card-poker")],
        config={"SNAPSHOT_DIR": str(tmp / "snaps")},
    )


@pytest.fixture(scope="module")
def sessions(board: Dashboard) -> dict[str | None, Session]:
    out = {name: board.client(name) for name in ROLES}
    boss = out["sam"]
    boss.act(TCP, "round-open")
    boss.act(TCP, "wager", seat=1, bet="ante", amount=1000)
    boss.act(TCP, "betting-closed")
    board.shoe(TCP, "AS", "KS", "QS")
    return out


def _routes(board: Dashboard) -> list[tuple[str, str]]:
    found = []
    for rule in board.app.url_map.iter_rules():
        if rule.rule in SKIPPED:
            continue
        for method in sorted((rule.methods or set()) & {"GET", "POST"}):
            found.append((method, rule.rule))
    return sorted(found)


def _fill(rule: str, values: list[str]) -> str:
    """The rule with each ``<converter:name>`` replaced by a (quoted) hostile value."""
    parts = iter(values)
    return re.sub(r"<[^>]+>", lambda _m: urllib.parse.quote(next(parts, "x"), safe=""), rule)


def _check(response: Any, what: object) -> None:
    try:
        assert response.status_code < 500, what
        if response.mimetype != "text/event-stream":
            assert not _EXCEPTION_TEXT.search(response.get_data(as_text=True)), what
    finally:
        response.close()  # a stream ends here (and frees its slot)


def test_every_route_query_and_header_as_every_role(board: Dashboard, sessions: dict) -> None:
    routes = _routes(board)

    @settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        who=st.sampled_from(ROLES),
        route=st.sampled_from(routes),
        path_values=st.lists(texts, min_size=2, max_size=2),
        query=st.dictionaries(st.sampled_from(PARAMS), texts, max_size=3),
        last_event=st.one_of(st.none(), texts),
        form=st.dictionaries(st.sampled_from(FIELDS), texts, max_size=4),
    )
    def check(who, route, path_values, query, last_event, form) -> None:
        session = sessions[who]
        method, rule = route
        url = _fill(rule, path_values) + "?" + urllib.parse.urlencode(query)
        headers = {"Last-Event-ID": last_event} if last_event is not None else {}
        headers = {k: v for k, v in headers.items() if "\n" not in v and "\r" not in v}
        if method == "GET":
            response = session.http.get(url, headers=headers)
        else:
            headers["X-CSRF-Token"] = session.csrf
            response = session.http.post(url, data={**form, "csrf_token": session.csrf}, headers=headers)
        _check(response, (who, method, url, form))

    check()
    assert board.runtime.fanout.client_count == 0  # every stream opened was freed when closed


@pytest.mark.parametrize("value", ["²", "0" * 30, "a\x00b", "9" * 5000])
def test_every_route_with_one_hostile_value_everywhere(board: Dashboard, sessions: dict, value: str) -> None:
    """A sweep that cannot miss a route: each with ``value`` in every path part, every query
    parameter, ``Last-Event-ID`` and every form field, as each role."""
    tried = 0
    for who in ROLES:
        session = sessions[who]
        for method, rule in _routes(board):
            url = _fill(rule, [value, value]) + "?" + urllib.parse.urlencode(dict.fromkeys(PARAMS, value))
            headers = {"Last-Event-ID": value} if value.isprintable() else {}
            if method == "GET":
                response = session.http.get(url, headers=headers)
            else:
                form = {**dict.fromkeys(FIELDS, value), "csrf_token": session.csrf}
                response = session.http.post(
                    url, data=form, headers={**headers, "X-CSRF-Token": session.csrf}
                )
            _check(response, (who, method, url))
            tried += 1
    assert tried >= 5 * 30  # every role, every route (the app has over 30 method-routes)


def test_every_action_field_as_json_as_every_role(board: Dashboard, sessions: dict) -> None:
    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        who=st.sampled_from(ROLES[1:]),
        kind=st.sampled_from(sorted(ACTIONS)),
        body=st.dictionaries(
            st.sampled_from(FIELDS), st.one_of(texts, st.integers(), st.floats(), st.none()), max_size=5
        ),
    )
    def check(who, kind, body) -> None:
        _check(sessions[who].act(TCP, kind, **body), (who, kind, body))

    check()


@pytest.mark.parametrize(
    ("path", "body"),
    [
        (f"/api/tables/{TCP}/actions/dice", '{"total": ' + "9" * 5000 + "}"),
        (f"/api/tables/{TCP}/actions/wager", "[" * 100_000 + "]" * 100_000),
        (f"/api/tables/{TCP}/actions/wager", '{"seat": ' + "[" * 900 + "]" * 900 + "}"),
        ("/api/progressive/correct", "{" * 50_000),
    ],
)
def test_pinned_bodies(board: Dashboard, sessions: dict, path: str, body: str) -> None:
    boss = sessions["sam"]
    response = boss.http.post(
        path, data=body, headers={"X-CSRF-Token": boss.csrf, "Content-Type": "application/json"}
    )
    _check(response, path)
    assert 400 <= response.status_code < 500


@pytest.mark.parametrize(
    "path",
    [
        "/surveillance/?seat=%C2%B2",
        "/api/records?after=%C2%B2",
        "/api/records?after=" + "9" * 30,
        "/api/records?limit=%C2%B2",
        "/surveillance/snapshots/a%00b.png",
        f"/stream?table={TCP}&after=" + "9" * 30,
        "/stream?after=%C2%B2",
    ],
)
def test_pinned_queries(sessions: dict, path: str) -> None:
    response = sessions["ada"].http.get(path)
    _check(response, path)
    assert response.status_code in (200, 400, 404)


def test_dice_total_and_fields_in_forms(sessions: dict) -> None:
    boss = sessions["sam"]
    for kind, body in [
        ("dice", {"total": "9" * 5000}),
        ("wager", {"seat": "²", "bet": "ante", "amount": "5"}),
    ]:
        response = boss.http.post(f"/api/tables/{TCP}/actions/{kind}", data={**body, "csrf_token": boss.csrf})
        _check(response, kind)
        assert response.status_code == 422
        assert response.get_json()["field"] in ("total", "seat")


@pytest.mark.parametrize("meter", ["--5", "+-5", "-+5", "5-", "++5"])
def test_a_meter_correction_takes_one_sign_only(meter: str) -> None:
    from dealerassist.web.actions import ActionError
    from dealerassist.web.progressive_ops import _signed_cents

    with pytest.raises(ActionError) as refused:
        _signed_cents(meter, "meter")
    assert refused.value.field == "meter"
    assert _signed_cents("-5", "meter") == -500 and _signed_cents("+12.34", "meter") == 1234
