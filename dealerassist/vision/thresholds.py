"""The reader's decision levels (``amend`` tabulates the second looks')."""

from __future__ import annotations

from dataclasses import dataclass

from dealerassist.vision.indexnet import SURE
from dealerassist.vision.second_look import AROUND_WINDOWS


@dataclass(frozen=True)
class Thresholds:
    """Decision levels, tuned on the development designs only (kennard-2color; KDE's nicu-white,
    Paris and Tigullio)."""

    accept: float = SURE  # rank x suit x index probability below which a corner names nothing
    seen_index: float = 0.5  # index probability above which an unread corner is a card seen
    seen_back: float = 0.5  # back probability above which a corner is compared with the enrolled back
    back_distance: float = 12.0  # mean per-value Lab distance to the nearest enrolled back corner
    settled: float = 0.99  # a read this sure outweighs rival names of one card or one print ...
    rival: float = 0.97  # ... when none of them reaches this
    unsure: float = 0.3  # a corner's best read from this sure up to accept is looked at again ...
    confirm_windows: int = 4  # ... and stands when this many of its 15 windows reach accept
    confirm_new_name_windows: int = 5  # the same for an unsure new name (at the print, at the named size)
    new_name: float = 0.9  # a window at the print or at the named size brings a new name this sure
    both_prints: float = 0.5  # unsure reads from this sure name a card when its two prints agree
    fan_middle: float = 0.8  # two windows between a fan's neighbours name its middle card this sure

    def __post_init__(self) -> None:
        for name in ("confirm_windows", "confirm_new_name_windows"):
            if not 1 <= getattr(self, name) <= AROUND_WINDOWS:
                raise ValueError(f"{name} must be 1..{AROUND_WINDOWS}, not {getattr(self, name)}")
