"""The demo in real headless Chromium: a dealer's screen follows live rounds, surveillance sees every
game's settled rounds and verifies the hash chain while the tables keep dealing."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from selenium.common.exceptions import NoAlertPresentException, WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement

from dealerassist.events import DeviceLink
from dealerassist.simulation.dealer import Chances
from dealerassist.simulation.demo import Demo, DemoOptions, demo_games
from tests.station.helpers import wait_for
from tests.web.browser import chart_texts_cut_short, chromium, page_moved_on

pytestmark = pytest.mark.browser

# A page load behind a password hash can take many seconds on a shared, busy test machine; the
# demo's five tables deal on the same cores meanwhile.
PAGE_WAIT = 40.0


@contextmanager
def fast_demo(tmp_path: Path, seed: int, chances: Chances, *, auto_supervisor: bool = True) -> Iterator[Demo]:
    """The demo's five tables dealing at --pace fast, without a camera, on a free port."""
    demo = Demo(
        DemoOptions(
            games=demo_games(),
            data_dir=tmp_path / "demo",
            port=0,
            pace="fast",
            camera=False,
            seed=seed,
            auto_supervisor=auto_supervisor,
            chances=chances,
        ),
        say=lambda _text: None,
    )
    demo.start()
    try:
        yield demo
    finally:
        demo.stop()


@pytest.fixture
def running_demo(tmp_path: Path) -> Iterator[Demo]:
    with fast_demo(tmp_path, 21, Chances(exposure=0.0, misread=0.2, jackpot=0.2)) as demo:
        yield demo


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
    """The verify page's verdict once it is shown: until its answer arrives the surveillance page
    still shows "not verified" under the same id, and the live page may redraw it while we read."""
    try:
        found = driver.find_elements(By.ID, "chain-status")
        text = found[0].text if found else ""
        return text if text.startswith(("Intact:", "BROKEN")) else None
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

    # Surveillance signs in at a screen of its own, as it would in the surveillance room.
    with chromium() as driver:
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
        driver.get(base + "surveillance/analytics")  # labels such as "demo-dealer 2026-12-07 graveyard"
        assert driver.find_elements(By.CSS_SELECTOR, "#chart-dealers svg text.chart-label")
        assert chart_texts_cut_short(driver) == []


# --- the supervisor's screen while five tables deal at --pace fast --------------------------------

SUPERVISOR = "demo-supervisor"


@pytest.fixture
def unattended_demo(tmp_path: Path) -> Iterator[Demo]:
    """Five tables at --pace fast with nobody acting for the supervisor: every acknowledgement
    and every jackpot payment must come from the browser. A rigged jackpot every round of a
    progressive table keeps Confirm paid coming."""
    with fast_demo(
        tmp_path, 5, Chances(exposure=0.0, misread=0.0, jackpot=1.0), auto_supervisor=False
    ) as demo:
        yield demo


def _refreshes(driver: WebDriver) -> int:
    return int(driver.execute_script("return Number(document.body.dataset.refreshCount || 0)"))


def _held_tap(driver: WebDriver, button: WebElement, touch: bool) -> None:
    """A finger held 300 ms or a mouse button held 150 ms, as people press a busy screen, after
    scrolling the button into view as they would."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'nearest'})", button)
    if touch:
        builder = ActionBuilder(driver, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
        builder.pointer_action.move_to(button).pointer_down().pause(0.3).pointer_up()
        builder.perform()
    else:
        ActionChains(driver).move_to_element(button).click_and_hold().pause(0.15).release().perform()


def _records(demo: Demo, kind: str) -> list[Any]:
    assert demo.station is not None
    return [r.event for r in demo.station.log.records() if r.event.kind == kind]


def test_supervisor_types_slowly_and_every_tap_lands_while_five_tables_deal(unattended_demo: Demo) -> None:
    demo = unattended_demo
    assert demo.server is not None and demo.station is not None
    base = demo.server.url
    pit = demo.station.pit
    tables = sorted(demo.dealers)
    progressive = sorted(demo.station.controllers)[0]
    with chromium() as driver:
        _log_in(driver, base, SUPERVISOR, demo.passwords[SUPERVISOR])
        assert driver.current_url.endswith("/supervisor")

        # Five tables side by side under the summary, not one long column.
        height = driver.execute_script("return document.documentElement.scrollHeight")
        assert height < 2000, f"the supervisor page is {height} px long"  # one column: ~3,000

        # Open "Parameters and meter" and type a correction one key at a time.
        details = f"#sup-{progressive} details[data-key=progressive-forms]"
        driver.find_element(By.CSS_SELECTOR, f"{details} summary").click()
        meter = driver.find_element(By.CSS_SELECTOR, f"{details} input[name=meter]")
        meter.click()
        before = _refreshes(driver)
        for key in "+12.34":
            meter.send_keys(key)
            time.sleep(0.4)
            assert driver.execute_script("return document.activeElement") == meter, (
                f"focus lost after {key!r}"
            )
        updates = _refreshes(driver) - before
        assert updates >= 3, f"only {updates} live updates in 2.4 s: the test proves nothing"
        assert driver.find_element(By.CSS_SELECTOR, details).get_attribute("open") is not None
        assert meter.get_attribute("value") == "+12.34"
        reason = driver.find_element(
            By.CSS_SELECTOR, f"{details} form[action$='/correct'] input[name=reason]"
        )
        for word in ("audit", " found", " 12.34", " short"):
            reason.send_keys(word)
            time.sleep(0.3)
        assert reason.get_attribute("value") == "audit found 12.34 short"
        driver.find_element(By.CSS_SELECTOR, f"{details} form[action$='/correct'] button").click()
        wait_for(lambda: _records(demo, "progressive-correction"), timeout=PAGE_WAIT, what="the correction")
        correction = [e for e in _records(demo, "progressive-correction") if e.user == SUPERVISOR]
        assert [(e.meter, e.reason) for e in correction] == [("1234", "audit found 12.34 short")]
        assert driver.find_element(By.CSS_SELECTOR, details).get_attribute("open") is not None

        # Twenty alarms, raised five at a time across the tables, each acknowledged with one tap.
        cleared = lambda: [e for e in _records(demo, "alarm-cleared") if e.user == SUPERVISOR]  # noqa: E731
        taps = 0
        raised: list[str] = []
        for wave in range(4):
            first = len(_records(demo, "alarm"))
            for table in tables:
                pit.handle(table, DeviceLink(table=table, device="camera", up=False, detail=f"wave {wave}"))
            ids = [e.alarm_id for e in _records(demo, "alarm")[first:]]
            assert len(ids) == len(tables)
            raised += ids
            for alarm_id in ids:
                row = f"#attention .alarm[data-alarm='{alarm_id}']"
                field = wait_for(
                    lambda r=row: driver.find_elements(By.CSS_SELECTOR, f"{r} input[name=reason]"),
                    timeout=PAGE_WAIT,
                    what=f"alarm {alarm_id} on screen",
                )[0]
                field.send_keys(f"camera checked, wave {wave}")
                _held_tap(driver, driver.find_element(By.CSS_SELECTOR, f"{row} button"), touch=taps % 2 == 1)
                taps += 1
            # The next wave raises the same camera conditions, so this one must be cleared first.
            due = len(raised)
            wait_for(lambda n=due: len(cleared()) >= n, timeout=PAGE_WAIT, what=f"wave {wave} cleared")
        assert sorted(e.alarm_id for e in cleared()) == sorted(raised)
        assert taps == 20

        # Jackpots: each Confirm paid tap (and its are-you-sure) pays exactly one.
        confirmed: list[str] = []
        for n in range(3):
            row = wait_for(
                lambda: driver.find_elements(
                    By.CSS_SELECTOR, f"#attention .jackpot[data-table='{progressive}']:not(.gone)"
                ),
                timeout=PAGE_WAIT,
                what="a jackpot waiting",
            )[0]
            confirmed.append(row.get_attribute("data-hit"))
            _held_tap(driver, row.find_element(By.TAG_NAME, "button"), touch=n % 2 == 0)
            wait_for(lambda: _alert(driver), timeout=PAGE_WAIT, what="are-you-sure").accept()
            wait_for(
                lambda h=confirmed[-1]: h in {e.hit_id for e in _records(demo, "progressive-paid")},
                timeout=PAGE_WAIT,
                what=f"jackpot {confirmed[-1]} paid",
            )
        paid = [e.hit_id for e in _records(demo, "progressive-paid") if e.user == SUPERVISOR]
        assert paid == confirmed
        assert not driver.find_element(By.ID, "action-error").is_displayed()


def _alert(driver: WebDriver) -> Any:
    try:
        return driver.switch_to.alert
    except NoAlertPresentException:
        return None
