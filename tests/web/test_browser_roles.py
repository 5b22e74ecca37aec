"""In real headless Chromium as the dealer: everything the browser receives (the page, every panel
it fetches, every stream message, the snapshot and records APIs) holds no hidden card code before
the card is turned up, no record of another table, no login and no export; and a session revoked
on the server is refused at the browser's next request."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from browser import chromium
from dashboard_fixtures import Dashboard, make_dashboard
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from test_browser import sign_in, wait

from dealerassist.commands.web import serve_in_thread
from dealerassist.tablefiles.tables import load_table

pytestmark = pytest.mark.browser

TCP, FCP = "tcp-1", "fcp-1"
HOLE = ("5D", "9C", "JD")
# Installed before any page script runs: keeps a copy of every stream message and fetched body.
RECORDER = """
window.__received = [];
const NativeSource = window.EventSource;
window.EventSource = function (url, options) {
  const source = new NativeSource(url, options);
  for (const kind of ["record", "overflow", "ended"]) {
    source.addEventListener(kind, (m) => window.__received.push({kind: "stream", data: m.data}));
  }
  return source;
};
window.EventSource.prototype = NativeSource.prototype;
const nativeFetch = window.fetch;
window.fetch = async (...args) => {
  const response = await nativeFetch(...args);
  response.clone().text().then((body) => window.__received.push({kind: "fetch", data: body}));
  return response;
};
"""
FETCH = """
const done = arguments[arguments.length - 1];
fetch(arguments[0], {credentials: "same-origin"}).then(async (r) => done([r.status, await r.text()]));
"""


def _hole_in(text: str) -> list[str]:
    return [code for code in HOLE if re.search(rf"(?<![\w-]){code}(?![\w-])", text)]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Dashboard, str]]:
    board = make_dashboard(
        tmp_path_factory.mktemp("roles"),
        [load_table("three-card-poker"), load_table("four-card-poker")],
    )
    server = serve_in_thread(board.app, "127.0.0.1", 0)
    yield board, f"http://127.0.0.1:{server.port}"
    server.shutdown()


@pytest.fixture
def dealer_browser() -> Iterator[WebDriver]:
    with chromium() as driver:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORDER})
        yield driver


def _received(driver: WebDriver) -> list[dict]:
    return list(driver.execute_script("return window.__received || []"))


def _fetch(driver: WebDriver, path: str) -> tuple[int, str]:
    status, body = driver.execute_async_script(FETCH, path)
    return int(status), str(body)


def _dealer_screen(driver: WebDriver, base: str, table: str) -> None:
    sign_in(driver, base, "dana")
    driver.get(f"{base}/tables/{table}")
    wait(driver, lambda: driver.find_element(By.CSS_SELECTOR, "#live.on"), "the stream is connected")


def _dealt(received: list[dict]) -> int:
    return sum(1 for m in received if m["kind"] == "stream" and '"card-dealt"' in m["data"])


def test_the_dealers_browser_never_receives_a_hidden_card(
    site: tuple[Dashboard, str], dealer_browser: WebDriver
) -> None:
    board, base = site
    driver = dealer_browser
    _dealer_screen(driver, base, TCP)
    pit = board.client("dana")
    assert pit.act(TCP, "round-open").status_code == 200
    assert pit.act(TCP, "wager", seat=1, bet="ante", amount=1000).status_code == 200
    assert pit.act(TCP, "betting-closed").status_code == 200
    board.shoe(TCP, "AS", "KS", "QS", *HOLE)
    # Around it: another table plays, surveillance signs in and exports.
    assert board.client("sam").act(FCP, "round-open").status_code == 200
    watcher = board.client("sue")
    assert watcher.get("/surveillance/export.jsonl").status_code == 200
    # Three Card Poker deals every hand face down: six backs, seat 1's decision buttons.
    wait(driver, lambda: len(driver.find_elements(By.CSS_SELECTOR, "#dealer img.card.back")) == 3, "dealt")
    wait(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#seat-1 .decisions form"), "decisions")

    # The stream a reconnecting screen gets: everything of the table from the log's start.
    driver.execute_script(f"new EventSource('/stream?table={TCP}&after=0')")
    wait(driver, lambda: _dealt(_received(driver)) >= 12, "six cards live and six replayed")
    snapshot_status, snapshot = _fetch(driver, f"/api/tables/{TCP}/snapshot")
    records_status, _ = _fetch(driver, "/api/records?after=0")
    replay_status, _ = _fetch(driver, "/tables")
    assert (snapshot_status, records_status, replay_status) == (200, 403, 200)
    received = _received(driver)
    streamed = [json.loads(m["data"]) for m in received if m["kind"] == "stream"]
    everything = driver.page_source + snapshot + json.dumps(received)
    assert _hole_in(everything) == [], "a hidden card reached the dealer's browser"
    assert {"card-dealt", "wager", "round-open"} <= {m["event"]["kind"] for m in streamed}
    assert {m["event"]["table"] for m in streamed} == {TCP}
    assert not [m for m in streamed if m["event"]["kind"] == "user-action"]
    assert "export" not in json.dumps(streamed)

    # Turned up (the round settles on the last decision): now the dealer sees them.
    assert pit.act(TCP, "decision", position="seat-1", action="play").status_code == 200
    wait(driver, lambda: _hole_in(driver.page_source) == list(HOLE), "the dealer's cards turned up")


def test_a_revoked_session_is_refused_at_its_next_request(
    site: tuple[Dashboard, str], dealer_browser: WebDriver
) -> None:
    driver = dealer_browser
    _dealer_screen(driver, site[1], FCP)
    board, base = site
    assert _fetch(driver, f"/api/tables/{FCP}/snapshot")[0] == 200
    admin = board.client("ada")
    admin.get("/admin/users")
    reset = admin.post_form("/admin/users", {"op": "reset", "name": "dana", "password": "dealer-pass-1"})
    assert reset.status_code == 302
    assert _fetch(driver, f"/api/tables/{FCP}/snapshot")[0] == 401
    driver.get(f"{base}/tables/{FCP}")
    wait(driver, lambda: "/login" in driver.current_url, "sent to the login page")
