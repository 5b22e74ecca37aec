"""The demo in real headless Chromium: a dealer's screen follows live rounds, surveillance sees every
game's settled rounds and verifies the hash chain while the tables keep dealing."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from dealerassist.simulation.dealer import Chances
from dealerassist.simulation.demo import Demo, DemoOptions, demo_games
from tests.station.helpers import wait_for
from tests.web.browser import chromium, page_moved_on

pytestmark = pytest.mark.browser

# A page load behind a password hash can take many seconds on a shared, busy test machine; the
# demo's five tables deal on the same cores meanwhile.
PAGE_WAIT = 40.0


@pytest.fixture
def running_demo(tmp_path: Path) -> Iterator[Demo]:
    demo = Demo(
        DemoOptions(
            games=demo_games(),
            data_dir=tmp_path / "demo",
            port=0,
            pace="fast",
            camera=False,
            seed=21,
            chances=Chances(exposure=0.0, misread=0.2, jackpot=0.2),
        ),
        say=lambda _text: None,
    )
    demo.start()
    yield demo
    demo.stop()


def _log_in(driver: WebDriver, base: str, name: str, password: str) -> None:
    # Off the live page first: a panel request still in flight there can set the session cookie
    # again after it is deleted, and the login page then shows the old user's sign-out button.
    driver.get(base + "login")
    driver.delete_all_cookies()
    driver.get(base + "login")
    driver.find_element(By.NAME, "name").send_keys(name)
    driver.find_element(By.NAME, "password").send_keys(password)
    driver.find_element(By.ID, "sign-in").click()
    wait_for(lambda: "/login" not in driver.current_url, timeout=PAGE_WAIT, what=f"{name} logged in")


def _chain_verdict(driver: WebDriver) -> str | None:
    """The chain status text once shown; the live page may redraw it while we read it."""
    try:
        found = driver.find_elements(By.ID, "chain-status")
        return (found[0].text or None) if found else None
    except WebDriverException as error:
        if page_moved_on(error):
            return None
        raise


def test_a_browser_sees_rounds_dealt_settled_and_audited(running_demo: Demo) -> None:
    demo = running_demo
    assert demo.server is not None
    base = demo.server.url
    tracker = demo.station.pit.tracker("tcp-1")  # type: ignore[union-attr]
    with chromium() as driver:
        _log_in(driver, base, "demo-dealer", demo.passwords["demo-dealer"])
        driver.get(base + "tables/tcp-1")
        seen_rounds = set()
        deadline = time.monotonic() + PAGE_WAIT
        while len(seen_rounds) < 3 and time.monotonic() < deadline:
            heading = driver.find_element(By.TAG_NAME, "body").text
            seen_rounds |= {f"Round {n}" for n in range(1, tracker.round_id + 1) if f"Round {n} " in heading}
            time.sleep(0.1)
        assert len(seen_rounds) >= 2, "the dealer's screen did not follow the rounds live"

        _log_in(driver, base, "demo-surveillance", demo.passwords["demo-surveillance"])
        wait_for(lambda: all(tally.settled >= 2 for tally in demo.tallies().values()), timeout=30)
        driver.get(base + "surveillance/")
        rows = driver.find_elements(By.CSS_SELECTOR, "tr.settled")
        tables = {row.find_elements(By.TAG_NAME, "td")[0].text for row in rows}
        assert tables >= {"tcp-1", "fcp-1", "fupg-1", "ppbj-1", "pu-1"}
        driver.find_element(By.ID, "verify-chain").click()
        verdict = wait_for(
            lambda: _chain_verdict(driver), timeout=PAGE_WAIT, what="the chain verdict while dealing goes on"
        )
        assert verdict.startswith("Intact:"), verdict
