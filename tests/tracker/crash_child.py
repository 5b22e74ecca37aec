"""Child process for the kill -9 test: feeds a script of inputs to a tracker on a file log.

Usage: ``crash_child.py DB SCRIPT.json``. It rebuilds the tracker from the log, skips the inputs
the log already holds (accepted or refused), prints ``ready``, then handles the rest, printing each
input's index only after ``handle`` returned (that is, once it is durable).
"""

from __future__ import annotations

import json
import sys

from highcard_game import high_card_rules

from dealerassist.errors import DealerAssistError
from dealerassist.storage.eventlog import EventLog
from dealerassist.tracker import Tracker
from dealerassist.tracker.events import INPUT_KINDS

TABLE = "hc-1"


def logged_inputs(log: EventLog) -> int:
    return sum(1 for record in log.records(table=TABLE) if record.event.kind in INPUT_KINDS | {"refused"})


def main(db: str, script_path: str) -> None:
    with open(script_path, encoding="utf-8") as fh:
        script = json.load(fh)
    log = EventLog(db)
    tracker = Tracker(high_card_rules(TABLE), log)
    done = logged_inputs(log)
    print("ready", done, flush=True)
    for index in range(done, len(script)):
        try:
            tracker.handle_data(script[index])
        except DealerAssistError:
            pass
        print(index, flush=True)
    print("done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
