"""Real headless Chromium (Debian's chromium + chromedriver) driven by selenium."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service

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
