"""End to end in real headless Chromium: a dealer plays a whole round of every game from the
touchscreen while the shoe's reads arrive as the shoe driver delivers them, and the screen must show
exactly what settlement pays. Supervisor, surveillance, sign and status screens are driven too, and
each test saves a screenshot of its screen. They go to a temporary folder so a test run never
changes the work tree; ``DEALERASSIST_SCREENSHOTS=docs/screenshots`` refreshes the README's."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator

import pytest
from browser import (
    chart_texts_cut_short,
    chromium,
    click,
    no_error,
    pay_on_screen,
    served,
    shot,
    showing,
    sign_in,
    sign_out,
    type_in,
    wait,
)
from dashboard_fixtures import (
    Dashboard,
    attach_progressive,
    make_dashboard,
    pai_gow_with_progressive,
)
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.select import Select

from dealerassist.core.cards import Card
from dealerassist.core.configfiles import bundled_dir
from dealerassist.core.money import format_amount, parse_amount
from dealerassist.events import CardRead, DeviceLink
from dealerassist.tablefiles.tables import load_table

pytestmark = pytest.mark.browser

# (table, wagers as (seat, bet, dollars), decision preference, shuffle seed)
GAMES = [
    ("tcp-1", [(1, "ante", "10"), (2, "ante", "25"), (2, "pair-plus", "5")], 11),
    ("fcp-1", [(1, "ante", "10"), (2, "ante", "5"), (2, "aces-up", "5")], 12),
    ("fupg-1", [(1, "wager", "25"), (2, "wager", "10"), (2, "fortune", "5")], 13),
    ("ppbj-1", [(1, "main", "10"), (2, "main", "25"), (2, "perfect-pairs", "10")], 14),
    ("pu-1", [(1, "ante", "5"), (2, "ante", "10"), (2, "double-match", "1")], 15),
]
PREFERRED = ("decline", "stand", "house-way", "play")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Dashboard, str]]:
    tmp = tmp_path_factory.mktemp("browser")
    fupg = pai_gow_with_progressive()
    others = [
        load_table(p)
        for p in sorted((bundled_dir() / "tables").glob("*.toml"))
        if p.stem != "face-up-pai-gow"
    ]
    board = make_dashboard(tmp, [fupg, *others])
    attach_progressive(board, fupg)
    with served(board.app) as base:
        yield board, base


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    with chromium() as driver:
        yield driver


def deal_from_shoe(board: Dashboard, table: str, shoe: list[str]) -> bool:
    """Feed shoe reads while the round expects a card; True if any card went out."""
    dealt = False
    while board.pit.tracker(table).snapshot()["next_deal"] is not None:
        board.shoe(table, shoe.pop())
        dealt = True
    return dealt


@pytest.mark.parametrize(("table", "wagers", "seed"), GAMES, ids=[g[0] for g in GAMES])
def test_dealer_plays_a_whole_round_and_sees_exactly_what_to_pay(
    site: tuple[Dashboard, str], browser: WebDriver, table: str, wagers: list[tuple[int, str, str]], seed: int
) -> None:
    board, base = site
    tracker = board.pit.tracker(table)
    shoe = [c.code for c in tracker.rules.deck.cards()]
    random.Random(seed).shuffle(shoe)
    sign_in(browser, base, "dana")
    browser.get(f"{base}/tables/{table}")
    phase = lambda: browser.find_element(By.ID, "phase").get_attribute("data-phase")  # noqa: E731
    click(browser, "button[data-kind=round-open]")
    wait(browser, lambda: phase() == "betting", "betting opens")

    for seat, bet, dollars in wagers:
        box = f"#seat-{seat} form.act"
        Select(browser.find_element(By.CSS_SELECTOR, f"{box} select[name=bet]")).select_by_visible_text(bet)
        field = browser.find_element(By.CSS_SELECTOR, f"{box} input[name=amount]")
        field.clear()
        field.send_keys(dollars)
        click(browser, f"{box} button[data-kind=wager]")
        wait(
            browser,
            lambda s=seat, b=bet: b in browser.find_element(By.CSS_SELECTOR, f"#seat-{s} .wagers").text,
            f"seat {seat} shows its {bet}",
        )
        no_error(browser)
    expected_wagers = {str(s): {} for s, _, _ in wagers}
    for s, b, d in wagers:
        expected_wagers[str(s)][b] = parse_amount(d)
    assert tracker.snapshot()["wagers"] == expected_wagers
    if table == "tcp-1":
        shot(browser, "dealer-betting")

    click(browser, "button[data-kind=betting-closed]")
    wait(browser, lambda: phase() != "betting", "betting closes")
    for _ in range(40):
        snap = tracker.snapshot()
        if snap["status"] != "open":
            break
        if deal_from_shoe(board, table, shoe):
            continue
        if snap["phase"] == "dice":
            browser.find_element(By.CSS_SELECTOR, "form.act input[name=total]").send_keys("9")
            click(browser, "button[data-kind=dice]")
            wait(browser, lambda: tracker.snapshot()["phase"] != "dice", "dice thrown")
            continue
        if snap["pending_decisions"]:
            position = snap["pending_decisions"][0]
            actions = snap["legal_actions"][position]
            action = next((a for a in PREFERRED if a in actions), actions[0])
            before = len(list(board.log.records(table=table)))
            click(browser, f"[data-position='{position}'] button.decision.{action}")
            wait(
                browser,
                lambda b=before: len(list(board.log.records(table=table))) > b,
                f"{position} {action}",
            )
            no_error(browser)
            continue
        if snap["phase"] not in ("complete", "settled"):
            click(browser, "button[data-kind=dealer-reveal]")
            time.sleep(0.2)
    settled = tracker.snapshot()
    assert settled["status"] == "settled", settled

    owed = pay_on_screen(browser, settled["settlement"])
    for seat in owed:
        rows = browser.find_elements(By.CSS_SELECTOR, f"#seat-{seat} table.results tbody tr")
        assert len(rows) == len([r for r in settled["settlement"]["results"] if r["seat"] == seat])
    assert browser.find_element(By.ID, "total-to-pay").text == format_amount(sum(owed.values()))
    for position, cards in settled["positions"].items():
        if position == "dealer":
            continue
        shown_cards = browser.find_elements(By.CSS_SELECTOR, f"[data-position='{position}'] .card")
        assert [c.get_attribute("data-card") for c in shown_cards] == [c["card"] for c in cards]
    for position, name in settled["hands"].items():
        if position != "dealer" and name:
            assert name in browser.find_element(By.CSS_SELECTOR, f"[data-position='{position}']").text
    shot(browser, f"dealer-{table}")
    click(browser, "button[data-kind=round-close]")
    wait(browser, lambda: phase() == "closed", "round closed")
    sign_out(browser)


def test_dealer_confirms_a_doubtful_read_and_types_an_unreadable_one(
    site: tuple[Dashboard, str], browser: WebDriver
) -> None:
    board, base = site
    tracker = board.pit.tracker("tcp-1")
    dealer = board.client("dana")
    dealer.act("tcp-1", "round-open")
    dealer.act("tcp-1", "wager", seat=3, bet="ante", amount=1500)
    dealer.act("tcp-1", "betting-closed")
    sign_in(browser, base, "dana")
    browser.get(f"{base}/tables/tcp-1")
    board.pit.handle("tcp-1", CardRead(table="tcp-1", source="shoe", card=Card.parse("QD"), confidence=0.55))
    showing(browser, ".prompt", "QD", "0.55")
    shot(browser, "dealer-confirm-read")
    click(browser, ".prompt button[data-kind=confirm-read]")
    wait(browser, lambda: tracker.snapshot()["positions"].get("seat-3"), "the confirmed card is dealt")
    assert tracker.snapshot()["positions"]["seat-3"][0]["card"] == "QD"
    board.pit.handle("tcp-1", CardRead(table="tcp-1", source="shoe", card=None, confidence=0.0))
    wait(
        browser,
        lambda: "could not read" in browser.find_element(By.CSS_SELECTOR, ".prompt").text,
        "typed read",
    )
    field = browser.find_element(By.CSS_SELECTOR, ".prompt input[name=card]")
    field.send_keys("7c")
    field.submit()
    wait(browser, lambda: len(tracker.snapshot()["positions"]["seat-3"]) == 2, "the typed card is dealt")
    assert tracker.snapshot()["positions"]["seat-3"][1]["card"] == "7C"
    confirmations = [r.event for r in board.log.records() if r.event.kind == "confirm-read"]
    assert [(e.user, e.card.code) for e in confirmations[-2:]] == [("dana", "QD"), ("dana", "7C")]
    board.client("sam").act("tcp-1", "approve-void", reason="end of the read test")
    board.client("sam").act("tcp-1", "round-close")
    sign_out(browser)


def test_supervisor_clears_an_alarm_the_dealer_cannot(
    site: tuple[Dashboard, str], browser: WebDriver
) -> None:
    board, base = site
    board.pit.handle(
        "tcp-1", DeviceLink(table="tcp-1", device="shoe", up=False, detail="USB cable unplugged")
    )
    sign_in(browser, base, "dana")
    browser.get(f"{base}/tables/tcp-1")
    alarm = browser.find_element(By.CSS_SELECTOR, "#alarms .alarm")
    assert "USB cable unplugged" in alarm.text
    assert alarm.value_of_css_property("background-color") == "rgba(198, 40, 40, 1)"  # red
    assert not browser.find_elements(By.CSS_SELECTOR, "button[data-kind=ack-alarm]")
    shot(browser, "dealer-alarm")
    sign_out(browser)

    sign_in(browser, base, "sam")
    assert browser.current_url.endswith("/supervisor")
    form = browser.find_element(By.CSS_SELECTOR, "#attention .alarm[data-table=tcp-1] form.act")
    click(
        browser, "#attention .alarm[data-table=tcp-1] button[data-kind=ack-alarm]"
    )  # no reason: the browser refuses
    assert board.pit.tracker("tcp-1").snapshot()["alarms"]
    form.find_element(By.CSS_SELECTOR, "input[name=reason]").send_keys("cable plugged back in")
    shot(browser, "supervisor")
    click(browser, "#attention .alarm[data-table=tcp-1] button[data-kind=ack-alarm]")
    wait(browser, lambda: not board.pit.tracker("tcp-1").snapshot()["alarms"], "alarm cleared")
    wait(browser, lambda: "No open alarms" in browser.find_element(By.ID, "sup-tcp-1").text, "panel updated")
    cleared = [r.event for r in board.log.records() if r.event.kind == "alarm-cleared"]
    assert cleared[-1].user == "sam" and cleared[-1].reason == "cable plugged back in"
    board.pit.handle("tcp-1", DeviceLink(table="tcp-1", device="shoe", up=True))

    # A wager entered wrong is corrected, then the round is voided, both with reasons.
    dealer = board.client("dana")
    assert dealer.act("tcp-1", "round-open").status_code == 200
    dealer.act("tcp-1", "wager", seat=4, bet="ante", amount="50")
    fix = "#sup-tcp-1 form[action$='/correct-wager']"
    wait(browser, lambda: "ante $50.00" in browser.find_element(By.ID, "sup-tcp-1").text, "round on the view")
    click(browser, "#sup-tcp-1 details.sup-forms summary")
    type_in(browser, f"{fix} input[name=seat]", "4")
    board.pit.handle("tcp-1", DeviceLink(table="tcp-1", device="camera", up=True))  # a live update mid-typing
    type_in(browser, f"{fix} input[name=amount]", "5")
    type_in(browser, f"{fix} input[name=reason]", "dealer keyed $50 for a $5 chip")
    assert browser.find_element(By.CSS_SELECTOR, f"{fix} input[name=seat]").get_attribute("value") == "4"
    click(browser, f"{fix} button")
    wait(
        browser,
        lambda: board.pit.tracker("tcp-1").snapshot()["wagers"] == {"4": {"ante": 500}},
        "wager fixed",
    )
    void = "#sup-tcp-1 form[action$='/approve-void']"
    type_in(browser, f"{void} input[name=reason]", "shoe swapped mid-round")
    click(browser, f"{void} button")
    wait(browser, lambda: browser.switch_to.alert, "are-you-sure dialog").accept()
    wait(browser, lambda: board.pit.tracker("tcp-1").snapshot()["status"] == "voided", "round voided")
    voided = [r.event for r in board.log.records() if r.event.kind in ("correct-wager", "approve-void")]
    assert [(e.kind, e.user, e.reason) for e in voided[-2:]] == [
        ("correct-wager", "sam", "dealer keyed $50 for a $5 chip"),
        ("approve-void", "sam", "shoe swapped mid-round"),
    ]
    dealer.act("tcp-1", "round-close")
    sign_out(browser)


def test_surveillance_filters_history_opens_a_timeline_and_verifies_the_chain(
    site: tuple[Dashboard, str], browser: WebDriver
) -> None:
    _board, base = site
    sign_in(browser, base, "sue")
    assert "/surveillance" in browser.current_url
    rows = browser.find_elements(By.CSS_SELECTOR, "#rounds tbody tr")
    assert len(rows) >= len(GAMES)
    Select(browser.find_element(By.NAME, "table")).select_by_visible_text("tcp-1")
    browser.find_element(By.CSS_SELECTOR, "#filters button[type=submit]").click()
    wait(browser, lambda: "table=tcp-1" in browser.current_url, "filtered")
    rows = browser.find_elements(By.CSS_SELECTOR, "#rounds tbody tr")
    assert rows and all(r.find_element(By.CSS_SELECTOR, "td").text == "tcp-1" for r in rows)
    browser.find_element(By.ID, "verify-chain").click()
    wait(browser, lambda: "Intact" in browser.find_element(By.ID, "chain-status").text, "chain verified")
    browser.get(f"{base}/surveillance/?table=tcp-1")
    assert "intact" in browser.find_element(By.ID, "chain-status").text
    shot(browser, "surveillance-history")
    browser.get(f"{base}/surveillance/?table=tcp-1&outcome=settled")
    browser.find_element(By.CSS_SELECTOR, "#rounds tbody tr td a").click()
    wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, ".timeline li"), "timeline")
    texts = [li.text for li in browser.find_elements(By.CSS_SELECTOR, ".timeline li")]
    assert any("round settled" in t for t in texts) and any("seat 1 ante $10.00 by dana" in t for t in texts)
    shot(browser, "surveillance-round")
    browser.set_window_size(1920, 1080)  # surveillance sits at a desktop
    browser.get(f"{base}/surveillance/analytics")
    assert browser.find_elements(By.CSS_SELECTOR, "#chart-hold svg .bar")
    clipped = chart_texts_cut_short(browser)
    assert clipped == [], f"chart texts cut at the edge: {clipped}"
    shot(browser, "surveillance-analytics")
    browser.set_window_size(1280, 800)
    sign_out(browser)


def test_sign_page_mirrors_the_progressive_live(site: tuple[Dashboard, str], browser: WebDriver) -> None:
    board, base = site
    controller = board.runtime.progressive_for("fupg-1")
    browser.get(f"{base}/sign?table=tcp-1")
    assert browser.find_element(By.CSS_SELECTOR, ".sign.fault").text.split("\n") == [
        "NO PROGRESSIVE",
        "table tcp-1 has no progressive",
    ]
    browser.get(f"{base}/sign")  # every progressive of the site: its one
    assert [s.get_attribute("data-table") for s in browser.find_elements(By.CSS_SELECTOR, ".sign")] == [
        "fupg-1"
    ]
    browser.get(f"{base}/sign?table=fupg-1")
    amount = browser.find_element(By.CSS_SELECTOR, ".sign[data-table='fupg-1'] .sign-amount")
    assert amount.text == format_amount(controller.state()["amount"])
    before = controller.state()["amount"]
    dealer = board.client("dana")
    assert dealer.act("fupg-1", "round-open").status_code == 200
    for seat in (1, 2, 3):
        dealer.act("fupg-1", "wager", seat=seat, bet="wager", amount="10")
        assert dealer.act("fupg-1", "wager", seat=seat, bet="progressive", amount="1").status_code == 200
    assert dealer.act("fupg-1", "betting-closed").status_code == 200
    after = controller.state()["amount"]
    assert after > before
    wait(
        browser,
        lambda: (
            browser.find_element(By.CSS_SELECTOR, ".sign[data-table='fupg-1'] .sign-amount").text
            == format_amount(after)
        ),
        "sign updated",
    )
    shot(browser, "sign")
    assert dealer.act("fupg-1", "approve-void").status_code == 403
    board.client("sam").act("fupg-1", "approve-void", reason="browser test ends the round")


def test_a_jackpot_reaches_dealer_sign_and_supervisor(
    site: tuple[Dashboard, str], browser: WebDriver
) -> None:
    """Seat 1 is dealt a seven-card straight flush: 100% of the meter, confirmed by a supervisor."""
    board, base = site
    controller = board.runtime.progressive_for("fupg-1")
    tracker = board.pit.tracker("fupg-1")
    dealer = board.client("dana")
    assert dealer.act("fupg-1", "round-open").status_code == 200
    dealer.act("fupg-1", "wager", seat=1, bet="wager", amount="10")
    dealer.act("fupg-1", "wager", seat=1, bet="progressive", amount="1")
    dealer.act("fupg-1", "betting-closed")
    dealer.act("fupg-1", "dice", total=9)
    planned = "AS KS QS JS TS 9S 8S".split()
    rest = [c.code for c in tracker.rules.deck.cards() if c.code not in planned]
    random.Random(7).shuffle(rest)
    while (step := tracker.snapshot()["next_deal"]) is not None:
        board.shoe("fupg-1", planned.pop(0) if step["position"] == "seat-1" else rest.pop())
    meter = controller.state()["amount"]
    sign_in(browser, base, "dana")
    browser.get(f"{base}/tables/fupg-1")
    click(browser, "[data-position='seat-1'] button.decision.house-way")
    showing(browser, "#seat-1 .jackpot-hit.pending", "seven-card-straight-flush", format_amount(meter))
    shot(browser, "dealer-jackpot")
    sign_out(browser)

    browser.get(f"{base}/sign?table=fupg-1")
    line = browser.find_element(By.CSS_SELECTOR, ".sign[data-table='fupg-1'] .sign-line").text
    assert line in ("WIN TABLE fupg-1 SEAT 1", "JACKPOT PENDING")
    if line.startswith("WIN"):
        assert browser.find_element(
            By.CSS_SELECTOR, ".sign[data-table='fupg-1'] .sign-amount"
        ).text == format_amount(meter)
    shot(browser, "sign-win")

    sign_in(browser, base, "sam")
    jackpot = browser.find_element(By.CSS_SELECTOR, "#attention .jackpot[data-table=fupg-1]")
    assert format_amount(meter) in jackpot.text
    jackpot.find_element(By.CSS_SELECTOR, "button").click()
    wait(browser, lambda: browser.switch_to.alert, "confirmation dialog").accept()
    wait(browser, lambda: not controller.state()["pending"], "jackpot confirmed")
    paid = [r.event for r in board.log.records() if r.event.kind == "progressive-paid"]
    assert paid[-1].user == "sam" and paid[-1].paid == meter
    wait(
        browser,
        lambda: not browser.find_elements(By.CSS_SELECTOR, "#attention .jackpot[data-table=fupg-1]"),
        "panel updated",
    )
    sign_out(browser)
    browser.get(f"{base}/sign?table=fupg-1")
    assert browser.find_element(
        By.CSS_SELECTOR, ".sign[data-table='fupg-1'] .sign-amount"
    ).text == format_amount(controller.state()["amount"])
    assert browser.find_element(By.CSS_SELECTOR, ".sign[data-table='fupg-1'] .sign-line").text == ""


def test_status_page_shows_links_and_the_last_error(site: tuple[Dashboard, str], browser: WebDriver) -> None:
    board, base = site
    board.pit.handle(
        "ppbj-1", DeviceLink(table="ppbj-1", device="camera", up=False, detail="no frames for 5 s")
    )
    sign_in(browser, base, "ada")
    browser.get(f"{base}/status")
    showing(browser, "tr[data-device=camera]", "no frames for 5 s", "DOWN")
    board.pit.handle("ppbj-1", DeviceLink(table="ppbj-1", device="camera", up=True, detail="frames again"))
    wait(
        browser,
        lambda: (
            browser.find_element(By.CSS_SELECTOR, "tr[data-device=camera]").get_attribute("class") == "ok"
        ),
        "status live",
    )
    assert "no frames for 5 s" in browser.find_element(By.CSS_SELECTOR, "tr[data-device=camera]").text
    shot(browser, "status")
    sign_out(browser)
