"""The one record game protection writes: surveillance looked at a flag, or cleared it.

Flags themselves are never stored: they are recomputed from the rounds. A review names the flag it
is about (its kind, table, seat and rounds or dealer and incident) and what the flag showed when it
was reviewed (p-value, statistic, evidence rounds), so the log says who judged what, on what
evidence, even after the flag has changed. Reviews are pit-wide records (``PIT_WIDE``): no table's
screen shows them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from dealerassist.events import Event

FlagKind = Literal["hole-card", "counting", "dealer"]
ReviewAction = Literal["looked", "cleared"]


@dataclass(frozen=True, kw_only=True)
class ProtectionReview(Event):
    """``user`` ``looked`` at or ``cleared`` the flag ``flag`` (its id as the page showed it).

    Session flags (hole-card, counting) name ``seat`` and the session's ``first_round`` and
    ``last_round``; dealer flags name ``dealer``, ``incident`` and the ``incidents`` counted.
    """

    kind: ClassVar[str] = "protection-review"
    flag: str
    flag_kind: FlagKind
    subject: str
    flag_table: str
    action: ReviewAction
    user: str
    role: str
    p_value: float
    statistic: dict[str, Any] = field(default_factory=dict)
    rounds: tuple[int, ...] = ()
    seat: int | None = None
    first_round: int | None = None
    last_round: int | None = None
    dealer: str = ""
    incident: str = ""
    incidents: int | None = None
    note: str = ""
