"""The dealer's touchscreen in real headless Chromium: seven seats at 1280x800 (a kiosk browser, no
toolbar), every control, input and PAY box inside the screen at every step of a round, no amount
cut short, fields wide enough for a finger."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from browser import chromium, click, pay_on_screen, served, shot, sign_in, wait
from dashboard_fixtures import Dashboard, make_dashboard
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from dealerassist.tablefiles.tables import load_table

pytestmark = pytest.mark.browser

TABLE = "ppbj-1"
SCREEN = {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False}
# Each seat is dealt a pair (split offered, Perfect Pairs paid), the dealer two aces (insurance).
PAIRS = {1: "2", 2: "3", 3: "4", 4: "5", 5: "8", 6: "9", 7: "7"}
FILLER = ["5C", "4D", "3S", "2H", "6C", "5D", "4S", "3H", "2C", "6D"]

# Every control, field and PAY box of the panel that lies outside the screen or behind the
# sticky control bar, every field a finger cannot hit, every amount drawn shorter than it is.
MISFITS = """
const bar = document.querySelector('#panel .controls').getBoundingClientRect();
const found = [];
const name = (el) => {
  const where = el.closest('[id]') ? el.closest('[id]').id : '';
  return `${where} ${el.tagName} ${el.name || el.textContent.trim()}`;
};
const px = (n) => Math.round(n);
for (const el of document.querySelectorAll(
    '#panel button, #panel input:not([type=hidden]), #panel select, #panel .to-pay')) {
  const r = el.getBoundingClientRect();
  const bottom = el.closest('.controls') ? window.innerHeight : bar.top;
  if (r.left < 0 || r.top < 0 || r.right > window.innerWidth || r.bottom > bottom + 0.5) {
    found.push(`${name(el)} at ${px(r.left)},${px(r.top)}-${px(r.right)},${px(r.bottom)}`);
  }
  if ((el.tagName === 'INPUT' || el.tagName === 'SELECT') && (r.width <= 76 || r.height < 44)) {
    found.push(`${name(el)} only ${Math.round(r.width)}x${Math.round(r.height)} px`);
  }
  if (el.tagName === 'BUTTON' && r.height < 44) found.push(`${name(el)} only ${px(r.height)} px high`);
}
for (const cell of document.querySelectorAll('#panel table.results td.pay, #panel .to-pay strong')) {
  if (cell.scrollWidth > cell.clientWidth + 0.5) found.push(`amount cut short: ${cell.textContent}`);
}
return {found, width: window.innerWidth, height: window.innerHeight, scrolled: window.scrollY};
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Dashboard, str]]:
    board = make_dashboard(tmp_path_factory.mktemp("layout"), [load_table("perfect-pairs-blackjack")])
    with served(board.app) as base:
        yield board, base


@pytest.fixture(scope="module")
def touchscreen() -> Iterator[WebDriver]:
    with chromium() as driver:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", SCREEN)
        yield driver


def assert_fits(driver: WebDriver, when: str) -> None:
    driver.execute_script("window.scrollTo(0, 0)")
    seen: dict[str, Any] = driver.execute_script(MISFITS)
    assert (seen["width"], seen["height"]) == (1280, 800)
    assert seen["found"] == [], f"{when}: {seen['found']}"


def test_seven_seats_fit_a_1280x800_touchscreen_at_every_step(
    site: tuple[Dashboard, str], touchscreen: WebDriver
) -> None:
    board, base = site
    tracker = board.pit.tracker(TABLE)
    dealer = board.client("dana")
    sign_in(touchscreen, base, "dana")
    touchscreen.get(f"{base}/tables/{TABLE}")
    wait(
        touchscreen,
        lambda: touchscreen.find_elements(By.CSS_SELECTOR, "button[data-kind='new-shoe']"),
        "shoe",
    )
    assert_fits(touchscreen, "between rounds: new shoe, a seat's player")
    for seat in range(1, 8):  # every seat named, one with the longest id a dealer may enter
        player = "W" * 64 if seat == 4 else f"card {seat:04d}"
        assert dealer.act(TABLE, "seat-player", seat=seat, player=player).status_code == 200
    wait(touchscreen, lambda: len(touchscreen.find_elements(By.CSS_SELECTOR, ".seat .player")) == 7, "names")
    assert_fits(touchscreen, "between rounds, every seat named")
    assert dealer.act(TABLE, "round-open").status_code == 200
    wait(touchscreen, lambda: len(touchscreen.find_elements(By.CSS_SELECTOR, ".seat form.act")) == 7, "bets")
    assert_fits(touchscreen, "betting, no bets yet")
    for seat in PAIRS:
        assert dealer.act(TABLE, "wager", seat=seat, bet="main", amount="1000").status_code == 200
        assert dealer.act(TABLE, "wager", seat=seat, bet="perfect-pairs", amount="200").status_code == 200
    wait(touchscreen, lambda: len(touchscreen.find_elements(By.CSS_SELECTOR, ".wagers")) == 7, "wagers drawn")
    assert_fits(touchscreen, "betting, every seat with two bets")
    assert dealer.act(TABLE, "betting-closed").status_code == 200

    while (step := tracker.snapshot()["next_deal"]) is not None:
        position = step["position"]
        code = "AS" if position == "dealer" else PAIRS[int(position.split("-")[1])] + "H"
        board.shoe(TABLE, code)
    assert tracker.snapshot()["phase"] == "insurance"
    wait(
        touchscreen,
        lambda: len(touchscreen.find_elements(By.CSS_SELECTOR, "button.decision.decline")) == 7,
        "",
    )
    assert_fits(touchscreen, "insurance offered to seven seats")
    for seat in PAIRS:
        click(touchscreen, f"[data-position='seat-{seat}'] button.decision.decline")
        wait(
            touchscreen, lambda s=seat: f"seat-{s}" not in tracker.snapshot()["pending_decisions"], f"{seat}"
        )

    while tracker.snapshot()["pending_decisions"]:
        position = tracker.snapshot()["pending_decisions"][0]
        wait(
            touchscreen,
            lambda p=position: touchscreen.find_elements(
                By.CSS_SELECTOR, f"[data-position='{p}'] .decision.double"
            ),
            f"{position} may double",
        )
        assert_fits(touchscreen, f"{position} to decide: hit, stand, double with an amount, split")
        if position == "seat-5":
            shot(touchscreen, "dealer-seven-seats")
        click(touchscreen, f"[data-position='{position}'] button.decision.stand")
        wait(touchscreen, lambda p=position: p not in tracker.snapshot()["pending_decisions"], position)

    filler = list(FILLER)
    while tracker.snapshot()["status"] == "open":
        if tracker.snapshot()["next_deal"] is not None:
            board.shoe(TABLE, filler.pop())
        else:
            assert dealer.act(TABLE, "dealer-reveal").status_code == 200
    settled = tracker.snapshot()
    assert settled["status"] == "settled", settled
    owed = pay_on_screen(touchscreen, settled["settlement"])
    assert max(owed.values()) >= 100_000  # four-figure amounts: the widest a pay cell must show
    assert_fits(touchscreen, "settled: seven PAY boxes")
    shot(touchscreen, "dealer-seven-seats-settled")
