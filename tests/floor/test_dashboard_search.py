"""The surveillance floor search over real HTTP: a real ``dealerassist run`` station (table tcp-2,
played by its dealer and supervisor through the dashboard) ships to a real PostgreSQL floor store
beside the demo station's tcp-1; surveillance searches both, gets the same rounds as ``audit
rounds --floor``, a 400 for every bad parameter, and an honest 503 when the floor is stopped; the
dealer and the supervisor get 403."""

from __future__ import annotations

import html
import json
import re
import time
import urllib.error
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest

from dealerassist.cli import main
from dealerassist.web.users import UserStore
from tests.commands.test_run import Process, _healthz
from tests.floor.conftest import Floor, Played, role_url
from tests.station.helpers import table_data, wait_for, write_table
from tests.web.dashboard_http import HttpUser

pytestmark = pytest.mark.postgres

TABLE = "tcp-2"
ACCOUNTS = {"dana": "dealer", "sam": "supervisor", "sue": "surveillance"}
PASSWORD = "floor-pass-1"
ROUND_ONE_CARDS = ("AS", "KS", "QS", "2H", "3H", "4H", "5D", "9C", "JD")


@dataclass
class Site:
    url: str
    floor: Floor
    started: datetime  # before tcp-2's first round (UTC, no zone: the search takes it as UTC)
    users: dict[str, HttpUser]


def _get(user: HttpUser, path: str) -> tuple[int, dict | str]:
    """Status and body (JSON when JSON) of a GET; errors are answers too."""
    try:
        response = user.opener.open(user.base + path, timeout=30)
    except urllib.error.HTTPError as exc:
        response = exc
    body = response.read().decode()
    kind = response.headers.get_content_type()
    return response.status, json.loads(body) if kind == "application/json" else body


def _api(who: HttpUser, **query: object) -> tuple[int, dict]:
    status, body = _get(who, "/api/floor/rounds?" + urllib.parse.urlencode(query, doseq=True))
    assert isinstance(body, dict), body
    return status, body


def _found(who: HttpUser, **query: object) -> list[dict]:
    """Every round the search finds, all pages."""
    rounds, page = [], 1
    while True:
        status, body = _api(who, **query, page=page, per_page=100)
        assert status == 200, body
        rounds += body["rounds"]
        if page >= body["pages"]:
            return rounds
        page += 1


def _keys(rounds: list[dict]) -> set[tuple[str, int]]:
    return {(r["table"], r["round_id"]) for r in rounds}


def _cli_rounds(capsys: pytest.CaptureFixture[str], floor: Floor, *options: str) -> set[tuple[str, int]]:
    capsys.readouterr()
    assert main(["audit", "rounds", "--floor", floor.auditor, "--json", *options]) == 0
    return {(r["table"], r["round_id"]) for r in map(json.loads, capsys.readouterr().out.splitlines())}


def _play(url: str) -> None:
    """Round 1 settles (seats 1 and 2, cards entered by hand); round 2 (seat 5) is voided."""
    dealer, boss = HttpUser(url), HttpUser(url)
    dealer.login("dana", PASSWORD)
    boss.login("sam", PASSWORD)
    steps = [
        (dealer, "round-open", {}),
        (dealer, "wager", {"seat": 1, "bet": "ante", "amount": 1000}),
        (dealer, "wager", {"seat": 2, "bet": "ante", "amount": 2500}),
        (dealer, "betting-closed", {}),
        *[(boss, "card-read", {"card": card}) for card in ROUND_ONE_CARDS],
        (dealer, "decision", {"position": "seat-1", "action": "play"}),
        (dealer, "decision", {"position": "seat-2", "action": "play"}),
        (dealer, "round-close", {}),
        (dealer, "round-open", {}),
        (dealer, "wager", {"seat": 5, "bet": "ante", "amount": 500}),
        (boss, "approve-void", {"reason": "dealer dropped the deck"}),
    ]
    for who, kind, body in steps:
        status, answer = who.act(TABLE, kind, **body)
        assert status == 200, (kind, answer)


@pytest.fixture(scope="module")
def site(floor: Floor, played: Played, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    root = tmp_path_factory.mktemp("floorweb")
    assert main(["floor", "add-station", "--floor", floor.admin, "station_pit2"]) == 0
    data = table_data("three-card-poker", None)
    data["table"].update(id=TABLE, name="Three Card Poker 2")
    data["floor"] = {
        "url": role_url(floor.pg, "station_pit2"),
        "stream": "pit-2",
        "search_url": floor.auditor,
    }
    table = write_table(root / "tcp-2.toml", data)
    (root / "data").mkdir()
    users = UserStore(root / "data" / "users.sqlite3", scrypt_n=2**10)
    for name, role in ACCOUNTS.items():
        users.add(name, role, PASSWORD)
    users.close()
    proc = Process([str(table), "--data-dir", str(root / "data"), "--port", "0"])
    try:
        wait_for(lambda: any("dashboard on http" in line for line in proc.lines), 60, "the dashboard")
        url = proc.url().rstrip("/")
        started = datetime.now(UTC).replace(tzinfo=None)
        _play(url)
        wait_for(lambda: _healthz(url + "/")[1]["floor"]["lag_records"] == 0, 30, "tcp-2 shipped")
        signed_in = {name: HttpUser(url) for name in ACCOUNTS}
        for name, user in signed_in.items():
            user.login(name, PASSWORD)
        yield Site(url, floor, started, signed_in)
    finally:
        code, err = proc.stop()
        assert code == 0, err


def test_surveillance_finds_the_same_rounds_as_audit_rounds_across_tables(
    site: Site, capsys: pytest.CaptureFixture[str]
) -> None:
    sue, floor = site.users["sue"], site.floor
    everything = _found(sue)
    assert {(TABLE, 1), (TABLE, 2)} | {("tcp-1", n) for n in range(1, 6)} <= _keys(everything)
    assert _keys(everything) == _cli_rounds(capsys, floor)
    by_key = {(r["table"], r["round_id"]): r for r in everything}
    one, two = by_key[(TABLE, 1)], by_key[(TABLE, 2)]
    settled = (one["outcome"], one["seats"], one["wagered"], one["dealer"])
    assert settled == ("settled", [1, 2], 7000, "dana")  # $10 and $25 antes, both played
    assert (two["outcome"], two["seats"], two["wagered"], two["house_net"]) == ("voided", [5], 500, 0)
    # Each filter alone, and as the CLI answers it.
    for query, options, expected in [
        ({"table": TABLE}, ["--table", TABLE], {(TABLE, 1), (TABLE, 2)}),
        ({"seat": 5}, ["--seat", "5"], {(TABLE, 2)}),
        ({"card": "as"}, ["--card", "AS"], {(TABLE, 1)}),
        ({"kind": "voids"}, ["--kind", "voids"], {(TABLE, 2)}),
        ({"user": "dana", "kind": ["voids"]}, ["--user", "dana", "--kind", "voids"], {(TABLE, 2)}),
        ({"user": "dana"}, ["--user", "dana"], {(TABLE, 1), (TABLE, 2)}),
    ]:
        found = _keys(_found(sue, **query))
        assert found == _cli_rounds(capsys, floor, *options), query
        assert {key for key in found if key[0] == TABLE} == expected, query
    assert not any(r["table"] == TABLE for r in _found(sue, seat=1, kind="voids"))
    # A time window: nothing of tcp-2 before its station played, both rounds after.
    before = site.started.isoformat()
    assert _found(sue, table=TABLE, to=before) == []
    assert _keys(_found(sue, table=TABLE, **{"from": before})) == {(TABLE, 1), (TABLE, 2)}
    # Latest first, a page at a time.
    status, page = _api(sue, table=TABLE, per_page=1)
    assert (
        status == 200 and (page["total"], page["pages"]) == (2, 2) and _keys(page["rounds"]) == {(TABLE, 2)}
    )
    status, page = _api(sue, table=TABLE, per_page=1, page=2)
    assert _keys(page["rounds"]) == {(TABLE, 1)}
    status, page = _api(sue, table=TABLE, per_page=1, page=3)
    assert status == 200 and page["rounds"] == [] and page["total"] == 2


def test_a_round_links_to_its_timeline_here_or_to_the_floor_copy(site: Site) -> None:
    sue = site.users["sue"]
    here = _found(sue, table=TABLE, card="AS")
    assert [(r["on_station"], r["href"]) for r in here] == [(True, f"/surveillance/rounds/{TABLE}/1")]
    status, page = _get(sue, here[0]["href"])
    assert status == 200 and 'alt="QS"' in page
    elsewhere = _found(sue, table="tcp-1")
    assert len(elsewhere) == 5 and not any(r["on_station"] for r in elsewhere)
    first = min(elsewhere, key=lambda r: r["round_id"])
    assert first["href"] == "/surveillance/floor/rounds/tcp-1/1"
    status, page = _get(sue, first["href"])
    assert status == 200 and "floor copy" in page and "kind-round-settled" in page
    assert page.count('class="kind-card-dealt"') >= 6  # every card of the round, hidden ones named
    status, missing = _get(sue, "/surveillance/floor/rounds/tcp-1/999")
    assert status == 404 and "holds no round 999" in missing
    status, page = _get(
        sue, "/surveillance/floor?" + urllib.parse.urlencode({"table": TABLE, "kind": "voids"})
    )
    assert status == 200 and 'id="floor-rounds"' in page and f"/surveillance/rounds/{TABLE}/2" in page
    assert f"/surveillance/rounds/{TABLE}/1" not in page
    status, page = _get(sue, f"/surveillance/floor?table={TABLE}&per_page=1")
    older = re.search(r'rel="next" href="([^"]+)"', page)
    assert status == 200 and older is not None and 'rel="prev"' not in page
    status, page = _get(sue, html.unescape(older.group(1)))
    assert status == 200 and "page 2 of 2" in page and f"/surveillance/rounds/{TABLE}/1" in page
    assert f"/surveillance/rounds/{TABLE}/2" not in page and 'rel="prev"' in page


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"seat": "three"}, "seat"),
        ({"seat": "0"}, "seat"),
        ({"card": "ZZ"}, "card"),
        ({"kind": "void"}, "kind"),
        ({"from": "yesterday"}, "from"),
        ({"from": "2026-12-07T10:00", "to": "2026-12-07T09:00"}, "from"),
        ({"page": "0"}, "page"),
        ({"per_page": "100000"}, "per_page"),
        ({"table": "t" * 300}, "table"),
        ({"user": "dana\x00"}, "user"),
    ],
)
def test_every_bad_parameter_is_a_400_naming_it(site: Site, query: dict, field: str) -> None:
    sue = site.users["sue"]
    status, body = _api(sue, **query)
    assert status == 400 and body["field"] == field and "\n" not in body["message"], body
    status, page = _get(sue, "/surveillance/floor?" + urllib.parse.urlencode(query))
    assert status == 400 and 'id="floor-problem"' in page and "Traceback" not in page


def test_the_dealer_and_the_supervisor_are_refused(site: Site) -> None:
    for name in ("dana", "sam"):
        for path in (
            "/api/floor/rounds",
            "/surveillance/floor?table=tcp-1",
            "/surveillance/floor/rounds/tcp-1/1",
        ):
            status, body = _get(site.users[name], path)
            assert status == 403, (name, path, body)
    status, spec = _get(site.users["sue"], "/api/openapi.json")
    assert status == 200 and "/api/floor/rounds" in spec["paths"]


def test_a_stopped_floor_store_is_an_honest_503(site: Site) -> None:
    sue = site.users["sue"]
    site.floor.pg.kill()
    try:
        started = time.monotonic()
        status, body = _api(sue, table=TABLE)
        assert status == 503 and body["field"] == "floor", body
        assert body["message"].startswith("floor store unreachable (postgresql://auditor@127.0.0.1:")
        status, page = _get(sue, "/surveillance/floor?table=" + TABLE)
        assert status == 503 and "floor store unreachable" in page and "Traceback" not in page
        status, page = _get(sue, "/surveillance/floor/rounds/tcp-1/1")
        assert status == 503 and "floor store unreachable" in page
        assert time.monotonic() - started < 15
        status, page = _get(sue, f"/surveillance/rounds/{TABLE}/1")  # this station's own log still answers
        assert status == 200
    finally:
        site.floor.pg.start()
    assert _keys(_found(sue, table=TABLE)) == {(TABLE, 1), (TABLE, 2)}


@pytest.mark.browser
def test_the_page_shows_the_floor_in_a_browser(site: Site) -> None:
    from selenium.webdriver.common.by import By

    from tests.web.browser import chromium, wait

    with chromium() as driver:
        driver.get(site.url + "/login")
        driver.find_element(By.ID, "name").send_keys("sue")
        driver.find_element(By.ID, "password").send_keys(PASSWORD)
        driver.find_element(By.ID, "sign-in").click()
        wait(driver, lambda: "/login" not in driver.current_url, "sue signed in")
        driver.find_element(By.LINK_TEXT, "Floor").click()
        driver.find_element(By.NAME, "table").send_keys("tcp-1")
        driver.find_element(By.CSS_SELECTOR, "#floor-filters button[type=submit]").click()
        rows = wait(
            driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#floor-rounds tbody tr"), "results"
        )
        cells = [row.find_elements(By.TAG_NAME, "td") for row in rows]
        assert [(c[0].text, c[1].text) for c in cells] == [("tcp-1", str(n)) for n in range(5, 0, -1)]
        assert "5 round(s) across the floor" in driver.find_element(By.ID, "floor-total").text
        cells[-1][1].find_element(By.TAG_NAME, "a").click()
        wait(driver, lambda: "floor copy" in driver.find_element(By.TAG_NAME, "h1").text, "the floor copy")
        assert driver.find_elements(By.CSS_SELECTOR, "ol.timeline li.kind-round-settled")
