"""A log being created when the process is killed is either absent or whole, never half made."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dealerassist.storage.eventlog import EventLog, LogError

CREATE = "import sys\nfrom dealerassist.storage.eventlog import EventLog\nEventLog(sys.argv[1])\n"


def test_kill_minus_nine_while_a_new_log_is_created(tmp_path: Path) -> None:
    rng = random.Random(5)
    for attempt in range(12):
        path = tmp_path / f"events-{attempt}.db"
        child = subprocess.Popen([sys.executable, "-c", CREATE, str(path)])
        time.sleep(rng.uniform(0.05, 0.6))
        child.kill()
        child.wait()
        log = EventLog(path)
        assert log.last_seq() == 0
        assert log.verify().ok
        log.close()


def test_two_writers_opening_one_new_file_agree_on_one_head(tmp_path: Path) -> None:
    path = tmp_path / "events.db"
    first, second = EventLog(path), EventLog(path)
    assert first.last_seq() == second.last_seq() == 0
    first.close()
    second.close()


def test_a_log_where_no_folder_can_be_made_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(LogError, match="cannot create the folder"):
        EventLog(blocker / "events.db")
