"""Keeps a jackpot sign showing what the controller says (``controller.state()``).

The sign driver coalesces updates to its own rate, so every state change is simply handed over:
WIN with the table and amount, then PENDING until a supervisor confirms, the amount otherwise,
and the fault text alternating with the amount while the shared meter is unreachable. A meter
never read this run shows no amount, or the last amount the table's log recorded, marked
``LAST KNOWN`` (``show_last_known``); never a default. The sign
refuses to go backwards unless a hit was announced; a lower amount caused by a logged correction
(a voided round's contributions given back, or a supervisor's correction) is passed on as a
documented decrease.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

log = logging.getLogger(__name__)
SIGN_FAULT_TEXT = "PROGRESSIVE LINK DOWN"


class Sign(Protocol):
    """What ``firmware_bridge.sign.JackpotSign`` offers."""

    def show_amount(self, cents: int, *, allow_decrease: bool = False, reason: str = "") -> None: ...

    def show_last_known(self, cents: int) -> None: ...

    def show_win(self, table: str, cents: int) -> None: ...

    def show_pending(self, table: str, cents: int | None = None) -> None: ...

    def set_fault(self, text: str | None) -> None: ...


class SignFeed:
    """A controller listener: ``controller.subscribe(SignFeed(sign))``."""

    def __init__(self, sign: Sign) -> None:
        self.sign = sign
        self._last: dict[str, Any] | None = None

    def __call__(self, state: dict[str, Any]) -> None:
        last, self._last = self._last, state
        self.sign.set_fault(SIGN_FAULT_TEXT if state["status"] == "fault" else None)
        win = state.get("win")
        if state["status"] == "win" and win:
            self.sign.show_win(str(win["table"]), int(win["amount"]))
            return
        if state["status"] == "pending" and win:
            self.sign.show_pending(str(win["table"]), int(win["amount"]))
            return
        if state["status"] == "fault" and win:
            return  # a jackpot still pending stays beside the fault
        if not state.get("known", True):
            recorded = state.get("last_recorded")
            if recorded is not None:
                self.sign.show_last_known(int(recorded))
            return  # an amount never read is not shown
        self._show_amount(state, last)

    def _show_amount(self, state: dict[str, Any], last: dict[str, Any] | None) -> None:
        amount = int(state["amount"])
        reason = ""
        if last is not None and amount < int(last["amount"]):
            meters, before = state["meters"], last["meters"]
            if meters["hits"] > before["hits"]:
                reason = "jackpot paid and the meter reset"
            elif meters["corrections"] != before["corrections"]:
                # the state does not say which: a voided round given back or a supervisor's correction
                reason = "logged correction (a voided round's contributions given back, or a supervisor's)"
        self.sign.show_amount(amount, allow_decrease=bool(reason), reason=reason)
