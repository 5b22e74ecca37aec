"""What the sign shows in each state, as Alpha TEXT and STRING file contents.

The amount lives in STRING file ``1`` called from TEXT file ``A``: a meter tick rewrites only the
string, so the running message is not restarted (no flicker, no scroll reset on the casino floor).
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

SignMode = Literal["amount", "win", "pending"]


@dataclass(frozen=True)
class SignState:
    """Everything the sign should show; equal states need no transmission."""

    mode: SignMode = "amount"
    cents: int = 0
    table: str = ""
    fault: str | None = None
    title: str = "JACKPOT"

    def amount_text(self) -> bytes:
        return format_amount(self.cents).encode("ascii")

    def text_file(self) -> bytes:
        """TEXT file ``A``: an optional fault page, then the state's own pages with the amount."""
        pages = b""
        if self.fault:
            pages += alpha.mode("flash") + alpha.color("amber") + printable(self.fault)
        if self.mode == "win":
            pages += alpha.mode("flash") + alpha.color("red") + b"WINNER TABLE " + printable(self.table)
            pages += alpha.mode("hold") + alpha.color("red") + alpha.call_string(AMOUNT_LABEL)
        elif self.mode == "pending":
            pages += alpha.mode("flash") + alpha.color("amber") + b"JACKPOT PENDING " + printable(self.table)
            pages += alpha.mode("hold") + alpha.color("amber") + alpha.call_string(AMOUNT_LABEL)
        else:
            pages += alpha.mode("hold") + alpha.color("green") + printable(self.title) + b" "
            pages += alpha.call_string(AMOUNT_LABEL)
        return pages

    def same_layout(self, other: SignState) -> bool:
        """True when only the amount differs, so a STRING write is enough."""
        return (self.mode, self.table, self.fault, self.title) == (
            other.mode,
            other.table,
            other.fault,
            other.title,
        )


def printable(text: str, limit: int = 60) -> bytes:
    """Sign-safe ASCII: control bytes and non-ASCII become '?', long texts are cut."""
    raw = text.encode("ascii", "replace")[:limit]
    return bytes(b if 0x20 <= b <= 0x7E else 0x3F for b in raw)
