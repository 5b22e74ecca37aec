"""The round tracker: runs each table's game from events and keeps the durable record."""

from dealerassist.tracker.pit import Pit
from dealerassist.tracker.tracker import Tracker, TrackerError

__all__ = ["Pit", "Tracker", "TrackerError"]
