"""Server-Sent Events over a real threaded HTTP server: replay by Last-Event-ID, live push, filters."""

from __future__ import annotations

import json
import urllib.error
from collections.abc import Iterator

import pytest
from dashboard_fixtures import PASSWORDS, TCP, Dashboard
from dashboard_http import HttpUser, sse_messages

from dealerassist.commands.web import serve_in_thread
from dealerassist.events import DeviceLink


@pytest.fixture
def live(dash: Dashboard) -> Iterator[str]:
    dash.app.config["SSE_HEARTBEAT"] = 0.2
    server = serve_in_thread(dash.app, "127.0.0.1", 0)
    yield f"http://127.0.0.1:{server.port}"
    server.shutdown()


def _user(base: str, name: str) -> HttpUser:
    user = HttpUser(base)
    user.login(name, PASSWORDS[name][1])
    return user


def test_live_records_reach_the_stream_and_a_reconnect_replays_what_it_missed(
    dash: Dashboard, live: str
) -> None:
    dealer = _user(live, "dana")
    start = dash.log.last_seq()
    stream = dealer.get(f"/stream?table={TCP}&after={start}", timeout=5)
    assert stream.headers["Content-Type"].startswith("text/event-stream")
    messages = sse_messages(stream)
    status, _ = dealer.act(TCP, "round-open")
    assert status == 200
    first = next(messages)
    assert first["event"] == "record"
    record = json.loads(first["data"])
    assert record["event"]["kind"] == "round-open" and int(first["id"]) == record["seq"] > start
    assert record["event"]["user"] == "dana"
    stream.close()

    dealer.act(TCP, "wager", seat=1, bet="ante", amount=500)
    dealer.act(TCP, "wager", seat=2, bet="ante", amount=700)
    again = dealer.get(f"/stream?table={TCP}", headers={"Last-Event-ID": first["id"]}, timeout=5)
    replayed = sse_messages(again)
    events = [json.loads(next(replayed)["data"])["event"] for _ in range(3)]
    assert [e["kind"] for e in events] == ["phase", "wager", "wager"]
    assert [e["seat"] for e in events[1:]] == [1, 2]
    again.close()


def test_a_table_filter_keeps_other_tables_and_pit_events_out(dash: Dashboard, live: str) -> None:
    watcher = _user(live, "sue")
    start = dash.log.last_seq()
    stream = sse_messages(watcher.get(f"/stream?table={TCP}&after={start}", timeout=5))
    _user(live, "dana")  # a login is a pit-wide user-action: not in this table's stream
    dash.pit.handle(TCP, DeviceLink(table=TCP, device="camera", up=False, detail="lens covered"))
    got = [json.loads(next(stream)["data"])["event"]["kind"] for _ in range(2)]
    assert got == ["device-link", "alarm"]


@pytest.mark.parametrize(
    ("query", "headers", "status"),
    [
        ("?after=abc", {}, 400),
        ("", {"Last-Event-ID": "-3"}, 400),
        ("?table=nope", {}, 404),
    ],
)
def test_bad_stream_requests(live: str, query: str, headers: dict[str, str], status: int) -> None:
    dealer = _user(live, "dana")
    with pytest.raises(urllib.error.HTTPError) as err:
        dealer.get(f"/stream{query}", headers=headers)
    assert err.value.code == status
    assert json.loads(err.value.read())["field"] in ("after", "Last-Event-ID", "table")


def test_the_stream_needs_a_signed_in_user(live: str) -> None:
    anonymous = HttpUser(live)
    with pytest.raises(urllib.error.HTTPError) as err:
        anonymous.get("/stream", headers={"Accept": "application/json"})
    assert err.value.code == 401


def test_an_id_from_beyond_the_log_starts_at_its_end(dash: Dashboard, live: str) -> None:
    dealer = _user(live, "dana")
    stream = sse_messages(dealer.get(f"/stream?table={TCP}", headers={"Last-Event-ID": "999999"}, timeout=5))
    dealer.act(TCP, "round-open")
    assert json.loads(next(stream)["data"])["event"]["kind"] == "round-open"


def test_a_browser_too_far_behind_gets_an_overflow_message_then_replays(dash: Dashboard) -> None:
    from dealerassist.events import Meta
    from dealerassist.web.fanout import Fanout
    from dealerassist.web.views.stream import _events

    fanout = Fanout(dash.log, queue_size=2)
    start = dash.log.last_seq()
    sub = fanout.connect(after=start)
    assert sub.next(timeout=0.01) is None  # caught up with the log: live records are queued now
    body = _events(sub, lambda r: f"id: {r.seq}\n\n", heartbeat=0.05, alive=lambda: True)
    assert next(body).startswith("retry:")
    records = [dash.log.append(Meta(table=TCP, data={"n": i})) for i in range(4)]
    for record in records:
        fanout.publish(record)
    sent = [next(body) for _ in range(3)]
    assert [m.split("\n")[0] for m in sent[:2]] == [f"id: {r.seq}" for r in records[:2]]
    assert sent[2].startswith("event: overflow")
    assert fanout.client_count == 0
    again = fanout.connect(after=records[1].seq)  # the browser reconnects with Last-Event-ID
    assert [again.next(timeout=0.1).seq for _ in range(2)] == [r.seq for r in records[2:]]
