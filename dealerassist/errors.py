"""Errors that reach people: each one says what was wrong and, where it can, where."""

from __future__ import annotations


class DealerAssistError(Exception):
    """Base of every error this application raises on purpose."""


class CardError(DealerAssistError, ValueError):
    """A card text or card that cannot be what the caller says it is."""


class DeckError(DealerAssistError):
    """A card the deck or shoe in use cannot supply (misdeal material)."""


class RuleViolation(DealerAssistError):
    """A wager or decision that the game's rules forbid.

    ``rule`` names the rule (a short stable identifier such as ``play-equals-ante``) so
    the dashboard and the log can show which rule refused the action.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{message} [rule: {rule}]")
        self.rule = rule
        self.message = message


class ConfigError(DealerAssistError):
    """A configuration file that does not hold what it must.

    The message always names the file and the problem, and the key unless it is the whole file
    (``key`` "-").
    """

    def __init__(self, file: str, key: str, problem: str) -> None:
        super().__init__(f"{file}: {problem}" if key == "-" else f"{file}: {key}: {problem}")
        self.file = file
        self.key = key
        self.problem = problem


class StorageUnavailable(DealerAssistError):
    """A file cannot be written now: the disk is full, the media is read-only, or it fails.

    Nothing was recorded, so nothing is lost as long as the sender keeps what it sent: a device
    repeats an input it was not told was taken, and a person is told to send it again.
    """
