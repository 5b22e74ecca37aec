"""What the sign shows in each state, as Alpha TEXT and STRING file contents.

The live meter lives in STRING file ``1`` called from TEXT file ``A``: a meter tick rewrites only
the string, so the running message is not restarted (no flicker, no scroll reset on the casino
floor). Every other face (a win, a pending jackpot, the last amount recorded while the meter cannot
be read) carries its amount in the TEXT file itself, so one write switches the whole face and no
moment shows a winner's text beside another amount. An amount never read shows no amount at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from dealerassist.core.money import format_amount
from firmware_bridge.sign import alpha

TEXT_LABEL: Final = "A"
AMOUNT_LABEL: Final = "1"
TEXT_SIZE: Final = 256
AMOUNT_SIZE: Final = 16
MAX_CENTS: Final = 999_999_999_99  # "$999,999,999.99" is the longest amount that fits 16 characters
MEMORY: Final = (
    alpha.MemoryEntry(TEXT_LABEL, "text", TEXT_SIZE),
    alpha.MemoryEntry(AMOUNT_LABEL, "string", AMOUNT_SIZE),
)
LAST_KNOWN_TEXT: Final = "LAST KNOWN"

SignMode = Literal["amount", "last-known", "win", "pending"]


@dataclass(frozen=True)
class SignState:
    """Everything the sign should show; equal states need no transmission. ``cents`` is None until
    an amount was read (or recorded): the sign then shows no amount, never a default."""

    mode: SignMode = "amount"
    cents: int | None = None
    table: str = ""
    fault: str | None = None
    title: str = "JACKPOT"

    def amount_text(self) -> bytes:
        return b"" if self.cents is None else format_amount(self.cents).encode("ascii")

    def calls_amount(self) -> bool:
        """True when the TEXT file shows the STRING file (only the live meter does)."""
        return self.mode == "amount" and self.cents is not None

    def text_file(self) -> bytes:
        """TEXT file ``A``: an optional fault page, then the state's own pages with the amount."""
        pages = b""
        if self.fault:
            pages += alpha.mode("flash") + alpha.color("amber") + printable(self.fault)
        amount = self.amount_text()
        if self.mode == "win":
            pages += alpha.mode("flash") + alpha.color("red") + b"WINNER TABLE " + printable(self.table)
            pages += _amount_page("red", amount)
        elif self.mode == "pending":
            pages += alpha.mode("flash") + alpha.color("amber") + b"JACKPOT PENDING " + printable(self.table)
            pages += _amount_page("amber", amount)
        elif self.mode == "last-known":
            pages += _amount_page("amber", amount, LAST_KNOWN_TEXT.encode() + b" ")
        elif self.calls_amount():
            pages += alpha.mode("hold") + alpha.color("green") + printable(self.title) + b" "
            pages += alpha.call_string(AMOUNT_LABEL)
        return pages


def _amount_page(colour: str, amount: bytes, prefix: bytes = b"") -> bytes:
    """A held page with the amount written out (no page at all without an amount)."""
    return alpha.mode("hold") + alpha.color(colour) + prefix + amount if amount else b""


def printable(text: str, limit: int = 60) -> bytes:
    """Sign-safe ASCII: control bytes and non-ASCII become '?', long texts are cut."""
    raw = text.encode("ascii", "replace")[:limit]
    return bytes(b if 0x20 <= b <= 0x7E else 0x3F for b in raw)
