"""The game-protection page and its reviews, through the dashboard's routes (test client).

A simulated hole-carder plays seat 2 through the pit's own tracker. Surveillance sees the flag with
its statistic and evidence rounds linked to their timelines, marks it looked and cleared; every
refusal (unknown, stale, already cleared, bad field, no CSRF token) writes nothing; new rounds open
a cleared flag again with its history kept; dealers and supervisors get 403, no link, and never a
review record in their streams or records.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from dashboard_fixtures import TCP, Dashboard, make_dashboard

from dealerassist.protection.events import ProtectionReview
from dealerassist.protection.records import read_rounds
from dealerassist.protection.report import protect
from dealerassist.simulation.players import TableSession, seated
from dealerassist.tablefiles.tables import load_table
from dealerassist.web.disclosure import Audience


def _table(dash: Dashboard, seed: int = 3) -> TableSession:
    players = {
        seat: seated(kind, random.Random(seed + seat))
        for seat, kind in {1: "perfect", 2: "hole-carder"}.items()
    }
    return TableSession(dash.pit.tracker(TCP), players, random.Random(seed))


def _play(session: TableSession, rounds: int) -> None:
    for _ in range(rounds):
        session.play_round()


def _flags(client: Any, query: str = "") -> list[dict[str, Any]]:
    response = client.get("/api/protection" + query)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()["flags"]


def test_surveillance_sees_the_hole_carder_with_its_rounds_and_reviews_it(tmp_path: Path) -> None:
    dash = make_dashboard(tmp_path, [load_table("three-card-poker")])
    table = _table(dash)
    _play(table, 30)
    sue = dash.client("sue")
    [flag] = _flags(sue)
    assert (flag["kind"], flag["seat"], flag["span"]) == ("hole-card", 2, [1, 30])
    assert flag["id"] == "hole-card:tcp-1:seat-2:1-30" and flag["p_value"] < 1e-4
    assert flag["statistic"]["followed_informed"] == flag["statistic"]["discordant"] > 0
    assert flag["review"] == {"status": "open", "cleared_by": None, "cleared_at": None, "history": []}
    assert [t["round"] for t in flag["timelines"]] == flag["rounds"]
    for link in flag["timelines"]:  # each evidence round opens on its own timeline
        assert link["url"] == f"/surveillance/rounds/{TCP}/{link['round']}"
        page = sue.get(link["url"]).get_data(as_text=True)
        assert f"Round {link['round']}" in page and "seat-2" in page

    page = sue.get("/surveillance/protection").get_data(as_text=True)
    assert 'data-flag="hole-card:tcp-1:seat-2:1-30"' in page and "tcp-1 seat 2 rounds 1-30" in page
    assert f'href="/surveillance/rounds/{TCP}/{flag["rounds"][0]}"' in page

    def post(body: Any, csrf: bool = True) -> Any:
        headers = {"X-CSRF-Token": sue.csrf} if csrf else {}
        return sue.http.post("/api/protection/reviews", json=body, headers=headers)

    before = dash.log.last_seq()
    for body, csrf, status, words in (
        ({"flag": flag["id"], "action": "cleared"}, False, 403, "CSRF"),
        ({"flag": "hole-card:tcp-1:seat-5:1-30", "action": "cleared"}, True, 404, "no flag"),
        ({"flag": "hole-card:tcp-1:seat-2:1-29", "action": "cleared"}, True, 409, "new evidence"),
        ({"flag": flag["id"], "action": "forgiven"}, True, 422, "looked, cleared"),
        ({"flag": flag["id"], "action": "looked", "note": "x" * 501}, True, 422, "500"),
        ({"action": "looked"}, True, 422, "required"),
        ({"flag": flag["id"], "action": "looked", "from": "last week"}, True, 400, "ISO-8601"),
    ):
        refused = post(body, csrf)
        assert refused.status_code == status and words in refused.get_json()["message"], refused.get_json()
    listed = post([flag["id"]])
    assert listed.status_code == 400 and listed.get_json()["field"] == "body"
    assert dash.log.last_seq() == before  # nothing written for a refusal

    looked = post({"flag": flag["id"], "action": "looked", "note": "watching his hands"})
    assert looked.status_code == 200 and looked.get_json()["review"]["user"] == "sue"
    cleared = post({"flag": flag["id"], "action": "cleared", "note": "house player, known"})
    assert cleared.status_code == 200
    twice = post({"flag": flag["id"], "action": "cleared"})
    assert twice.status_code == 409 and "already cleared by sue" in twice.get_json()["message"]
    [flag] = _flags(sue)
    review = flag["review"]
    assert review["status"] == "cleared" and review["cleared_by"] == "sue"
    assert [(h["action"], h["note"]) for h in review["history"]] == [
        ("looked", "watching his hands"),
        ("cleared", "house player, known"),
    ]
    page = sue.get("/surveillance/protection").get_data(as_text=True)
    assert "cleared by sue" in page and "house player, known" in page
    assert 'value="cleared"' not in page  # no second clear offered

    [record] = [r for r in dash.log.records(after=before) if r.event.kind == "protection-review"][1:]
    event = record.event
    assert isinstance(event, ProtectionReview) and event.table == "*"
    assert (event.flag_kind, event.seat, event.first_round, event.last_round) == ("hole-card", 2, 1, 30)
    assert list(event.rounds) == flag["rounds"] and event.p_value == flag["p_value"]

    # The seat plays on: new evidence opens the flag again, the clear stays in its history.
    _play(table, 3)
    [flag] = _flags(sue)
    assert flag["span"] == [1, 33] and flag["review"]["status"] == "open"
    assert [h["action"] for h in flag["review"]["history"]] == ["looked", "cleared"]
    # A window that starts mid-session still finds the session's reviews.
    since = next(
        r.recorded_at for r in dash.log.records() if r.event.kind == "round-open" and r.event.round_id == 10
    )
    [windowed] = _flags(sue, f"?from={since}")
    assert windowed["span"][0] == 10 and len(windowed["review"]["history"]) == 2

    # The page's own form: looked, then cleared, back on the page with a flash.
    form = sue.post_form("/surveillance/protection/reviews", {"flag": flag["id"], "action": "cleared"})
    assert form.status_code == 303 and form.headers["Location"].endswith("/surveillance/protection")
    assert _flags(sue)[0]["review"]["status"] == "cleared"
    dash.log.close()
    dash.users.close()


def test_dealers_and_supervisors_neither_reach_nor_receive_protection(tmp_path: Path) -> None:
    dash = make_dashboard(tmp_path, [load_table("three-card-poker")], config={"SSE_HEARTBEAT": 0.2})
    _play(_table(dash), 25)
    sue = dash.client("sue")
    [flag] = _flags(sue)
    assert 'href="/surveillance/protection"' in sue.get("/status").get_data(as_text=True)
    sue.post_json("/api/protection/reviews", {"flag": flag["id"], "action": "looked"})
    for name in ("dana", "sam"):
        client = dash.client(name)
        assert client.get("/surveillance/protection").status_code == 403
        assert client.get("/api/protection").status_code == 403
        post = client.post_json("/api/protection/reviews", {"flag": flag["id"], "action": "cleared"})
        assert post.status_code == 403
        assert "protection" not in client.get("/status").get_data(as_text=True).lower()
        for query in (f"?table={TCP}&after=0", "?after=0"):
            stream = client.get("/stream" + query, buffered=False)
            if stream.status_code != 200:  # a dealer has no table-less record stream
                continue
            seen = _stream_kinds(stream, dash.log.last_seq())
            assert "user-action" not in seen and "protection-review" not in seen, (name, query)
            assert "round-open" in seen or (name, query) == ("dana", "?after=0")  # a dealer's status stream
    spec = dash.client().get("/api/openapi.json").get_json()["paths"]
    assert "get" in spec["/api/protection"] and "post" in spec["/api/protection/reviews"]
    # However a review names a table, only the roles that audit ever receive it.
    review = next(r for r in dash.log.records() if r.event.kind == "protection-review")
    for role in ("dealer", "supervisor"):
        assert not Audience(role, TCP).admits(TCP, "protection-review")
        assert Audience(role).record(review) is None
    assert Audience("surveillance").record(review) is not None
    dash.log.close()
    dash.users.close()


def _stream_kinds(response: Any, last: int) -> set[str]:
    """The kinds of the records a stream replays up to seq ``last``."""
    kinds: set[str] = set()
    text = ""
    for chunk in response.response:
        text += chunk.decode() if isinstance(chunk, bytes) else chunk
        ids = [int(i) for i in re.findall(r"^id: (\d+)$", text, re.MULTILINE)]
        if (ids and ids[-1] >= last) or text.count("keep-alive"):
            break
    for data in re.findall(r"^data: (.*)$", text, re.MULTILINE):
        body = json.loads(data)
        if "event" in body:
            kinds.add(body["event"]["kind"])
    response.close()
    return kinds


def test_the_page_says_when_the_window_holds_more_rounds_than_it_analyses(tmp_path: Path) -> None:
    dash = make_dashboard(tmp_path, [load_table("three-card-poker")], config={"PROTECTION_MAX_ROUNDS": 15})
    table = _table(dash, seed=4)
    sue = dash.client("sue")
    for rounds in (10, 7, 8):  # the kept rounds follow the log and forget the oldest
        _play(table, rounds)
        assert sue.get("/api/protection").status_code == 200
    body = sue.get("/api/protection").get_json()
    assert (body["window_rounds"], body["analysed_rounds"]) == (25, 15)
    assert all(s["rounds"][0] >= 11 for s in body["sessions"])  # the latest 15 rounds
    latest = [r for r in read_rounds(dash.log) if r.round_id > 10]
    assert body["sessions"] == json.loads(json.dumps(protect(latest).sessions))  # as read at once
    # A window into the past, older than the kept rounds, is read on its own.
    until = next(
        r.recorded_at for r in dash.log.records() if r.event.kind == "round-open" and r.event.round_id == 9
    )
    past = sue.get(f"/api/protection?to={until}").get_json()
    assert (past["window_rounds"], past["analysed_rounds"]) == (8, 8)
    assert past["sessions"] == json.loads(json.dumps(protect(read_rounds(dash.log)[:8]).sessions))
    assert "the latest 15 analysed" in sue.get("/surveillance/protection").get_data(as_text=True)
    late = sue.get("/api/protection?from=2999-01-01").get_json()
    assert (late["window_rounds"], late["flags"]) == (0, [])
    bad = sue.get("/surveillance/protection?to=soon")
    assert bad.status_code == 400 and "to" in bad.get_data(as_text=True)
    dash.log.close()
    dash.users.close()


def test_the_page_benchmark_runs_and_prints_its_ratios(capsys: Any) -> None:
    import sys

    bench_dir = str(Path(__file__).resolve().parents[2] / "bench")
    sys.path.insert(0, bench_dir)
    try:
        import protection_page
    finally:
        sys.path.remove(bench_dir)
    assert protection_page.main(["--rounds", "30", "--bound", "20", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["rounds"], result["bound"]) == (30, 20) and result["records"] > 30
    assert result["same_head_view_s"] < result["first_view_s"]
    assert result["first_view_ratio"] > 0 and result["view_after_a_round_ratio"] > 0
