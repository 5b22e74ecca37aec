"""Durable, tamper-evident storage of table events (the surveillance record)."""

from dealerassist.storage.eventlog import ChainReport, EventLog, LogError, LogRecord

__all__ = ["ChainReport", "EventLog", "LogError", "LogRecord"]
