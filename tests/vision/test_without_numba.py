"""numba is an optional extra (``fast``): a reader installed without it reads what the compiled
reader reads, and says once that its loops run uncompiled."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from dealerassist.compiled import is_compiled
from dealerassist.vision.reader import CardReader
from dealerassist.vision.scenes import make_scene

# A process where ``import numba`` fails, as on an install without the extra; it reads the frame
# twice with the shipped deck and prints the second read's sightings.
_WITHOUT_NUMBA = """
import json, logging, sys

class NoNumba:
    def find_spec(self, name, path=None, target=None):
        if name == "numba" or name.startswith("numba."):
            raise ModuleNotFoundError("No module named 'numba'")

sys.meta_path.insert(0, NoNumba())
logging.basicConfig(format="%(levelname)s %(name)s: %(message)s")
import numpy as np
from dealerassist.compiled import is_compiled
from dealerassist.simulation.camera import load_demo_deck
from dealerassist.vision.reader import CardReader

assert not is_compiled() and "numba" not in sys.modules
deck, _ = load_demo_deck(print)
reader = CardReader(deck)
frame = np.load(sys.argv[1])
reader.read(frame)
print(json.dumps([s.to_json() for s in reader.read(frame)]))
"""


def test_a_reader_without_numba_reads_what_the_compiled_one_reads(
    reader: CardReader, design: dict[str, np.ndarray], tmp_path: Path
) -> None:
    assert is_compiled()  # the test process: bootstrap installs the fast extra
    frame, _truth = make_scene(design, np.random.default_rng(11), cards=9)
    np.save(tmp_path / "frame.npy", frame)
    compiled = json.loads(json.dumps([s.to_json() for s in reader.read(frame)]))
    assert sum(1 for s in compiled if s.get("card")) >= 5  # a frame the stages have work in
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT_NUMBA, str(tmp_path / "frame.npy")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == compiled
    said = [line for line in done.stderr.splitlines() if "dealerassist.compiled" in line]
    assert len(said) == 1, done.stderr
    assert said[0].startswith("WARNING") and "uncompiled (no numba)" in said[0]
    assert "pip install 'dealerassist[fast]'" in said[0]
