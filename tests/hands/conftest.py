"""Load ``tests/reference_evaluators.py`` as the module ``reference_evaluators`` for this plain
(package-free) test folder, without putting ``tests/`` on ``sys.path``: that would let folders
such as ``tests/firmware_bridge`` shadow the real packages of the same name."""

import importlib.util
import sys
from pathlib import Path

_PATH = Path(__file__).resolve().parents[1] / "reference_evaluators.py"

if "reference_evaluators" not in sys.modules:
    _spec = importlib.util.spec_from_file_location("reference_evaluators", _PATH)
    assert _spec is not None and _spec.loader is not None
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["reference_evaluators"] = _module
    _spec.loader.exec_module(_module)
