"""Importing the evaluators stays light: small tables at import, numpy and big tables on first use."""

import subprocess
import sys

PROBE = """
import sys, time
started = time.process_time()
import dealerassist.hands
elapsed = time.process_time() - started
print(elapsed, 'numpy' in sys.modules)
"""


def test_import_builds_only_small_tables_and_takes_under_half_a_second() -> None:
    command = [sys.executable, "-c", PROBE]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)
    elapsed, numpy_loaded = done.stdout.split()
    assert float(elapsed) < 0.5
    assert numpy_loaded == "False"
