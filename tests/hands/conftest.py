"""Make ``tests/reference_evaluators.py`` importable from this plain (package-free) test folder."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
