"""Real headless Chromium (Debian's chromium + chromedriver) driven by selenium."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.common.exceptions import (
    ElementNotInteractableException,
    NoSuchElementException,
    StaleElementReferenceException,
    WebDriverException,
)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

SCREENSHOTS = Path(os.environ.get("DEALERASSIST_SCREENSHOTS") or tempfile.mkdtemp(prefix="da-shots-"))
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)

# Chromium's words when a page loads between finding an element and reading it: the same race as a
# stale element, but reported as an unknown error.
NODE_LEFT_DOCUMENT = "does not belong to the document"


def page_moved_on(error: WebDriverException) -> bool:
    """Whether ``error`` only says the element read was replaced by a page load or a redraw."""
    return isinstance(error, StaleElementReferenceException) or NODE_LEFT_DOCUMENT in (error.msg or "")


@contextmanager
def served(app: Any) -> Iterator[str]:
    """The dashboard ``app`` on a free loopback port; yields its base URL."""
    from dealerassist.commands.web import serve_in_thread

    server = serve_in_thread(app, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        server.shutdown()


@contextmanager
def chromium(width: int = 1280, height: int = 800) -> Iterator[webdriver.Chrome]:
    """A fresh browser profile at a 10-inch touchscreen's 1280x800 unless told otherwise."""
    with tempfile.TemporaryDirectory(prefix="dashboard-chromium-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={profile}")
        options.add_argument(f"--window-size={width},{height}")
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        try:
            yield driver
        finally:
            driver.quit()


def wait(driver: WebDriver, condition: Callable[[], Any], what: str, timeout: float = 30) -> Any:
    """``condition``'s first true value within ``timeout`` s; a read cut off by a page load or a
    redraw, or an element not there yet, is a try that has not come true."""

    def settled() -> Any:
        try:
            return condition()
        except WebDriverException as error:
            if page_moved_on(error):
                return None
            raise

    return WebDriverWait(
        driver,
        timeout,
        ignored_exceptions=(
            NoSuchElementException,
            ElementNotInteractableException,
        ),
    ).until(lambda _d: settled(), message=what)


def sign_in(driver: WebDriver, base: str, name: str) -> None:
    from dashboard_fixtures import PASSWORDS  # the dashboard tests' accounts (tests/web only)

    driver.get(base + "/login")
    driver.find_element(By.ID, "name").send_keys(name)
    driver.find_element(By.ID, "password").send_keys(PASSWORDS[name][1])
    driver.find_element(By.ID, "sign-in").click()
    wait(driver, lambda: "/login" not in driver.current_url, f"{name} signed in")


def sign_out(driver: WebDriver) -> None:
    driver.find_element(By.CSS_SELECTOR, "form[action='/logout'] button").click()
    wait(driver, lambda: "/login" in driver.current_url, "signed out")


def click(driver: WebDriver, selector: str) -> None:
    wait(driver, lambda: driver.find_element(By.CSS_SELECTOR, selector).is_enabled(), selector)
    wait(driver, lambda: driver.find_element(By.CSS_SELECTOR, selector).click() or True, f"click {selector}")


def showing(driver: WebDriver, selector: str, *words: str) -> str:
    """Wait until the element at ``selector`` shows every one of ``words`` and return its text.

    Each try looks the element up afresh and reads its text once: a live panel may be re-rendered
    between two reads, and a replaced element reads as empty."""

    def text_with_words() -> str | None:
        text = driver.find_element(By.CSS_SELECTOR, selector).text
        return text if all(w in text for w in words) else None

    return wait(driver, text_with_words, f"{selector} showing {words}")


def type_in(driver: WebDriver, selector: str, text: str) -> None:
    """Type into a field of a live panel (a re-render between find and type is retried)."""
    wait(driver, lambda: driver.find_element(By.CSS_SELECTOR, selector).send_keys(text) or True, selector)


def no_error(driver: WebDriver) -> None:
    box = driver.find_element(By.ID, "action-error")
    assert not box.is_displayed(), box.text


def shot(driver: WebDriver, name: str, focus: str | None = None) -> None:
    """Save a README screenshot, scrolled to the top or to the ``focus`` element, after checking the
    screen needs no sideways scrolling (a dealer cannot pan a touchscreen mid-round)."""
    overflow = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{name}: {overflow}px wider than the screen"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    driver.execute_script("window.scrollTo(0, 0); document.activeElement.blur();")
    if focus:
        driver.execute_script("document.querySelector(arguments[0]).scrollIntoView();", focus)
    driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))


def chart_texts_cut_short(driver: WebDriver) -> list[str]:
    """The texts of the page's server-drawn charts that reach past their chart's edge."""
    return driver.execute_script(
        """const cut = [];
        for (const svg of document.querySelectorAll('svg.chart')) {
          const view = svg.viewBox.baseVal;
          for (const text of svg.querySelectorAll('text')) {
            const box = text.getBBox();
            if (box.x < view.x || box.x + box.width > view.x + view.width) cut.push(text.textContent);
          }
        }
        return cut;"""
    )


def pay_on_screen(driver: WebDriver, settlement: dict[str, Any]) -> dict[int, int]:
    """Check that each seat's PAY box shows what ``settlement`` pays it (stake back plus
    winnings, to the cent) and return the cents owed per seat."""
    from dealerassist.core.money import format_amount

    owed: dict[int, int] = {}
    for r in settlement["results"]:
        owed[r["seat"]] = owed.get(r["seat"], 0) + r["win"] + r["returned"]
    wait(driver, lambda: driver.find_elements(By.ID, "total-to-pay"), "the settlement is on screen")
    for seat, cents in owed.items():
        shown = driver.find_element(By.CSS_SELECTOR, f"#seat-{seat} .to-pay")
        assert int(shown.get_attribute("data-to-pay")) == cents
        if cents:
            assert format_amount(cents) in shown.text
    return owed
