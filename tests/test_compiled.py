"""The reader's loops compile even where numba can keep no cache of them, and run uncompiled
without numba."""

from __future__ import annotations

import importlib.util
import logging
import os
import subprocess
import sys

import numpy as np
import pytest

from dealerassist import compiled as compiled_module
from dealerassist.compiled import compiled

HAS_NUMBA = importlib.util.find_spec("numba") is not None
needs_numba = pytest.mark.skipif(not HAS_NUMBA, reason="numba (the fast extra) is not installed")


def _loop_without_a_source_file():
    """A loop numba can find no cache place for: its source is no file (so none beside it, under
    NUMBA_CACHE_DIR or in the user's cache), as for a read-only install run without a home."""
    namespace: dict[str, object] = {}
    source = "def total(values):\n    sum = 0.0\n    for v in values:\n        sum += v\n    return sum\n"
    exec(compile(source, "<generated>", "exec"), namespace)
    return namespace["total"]


@needs_numba
def test_a_loop_without_a_cache_place_still_compiles_and_says_so(monkeypatch, caplog) -> None:
    monkeypatch.setattr(compiled_module, "_warned", False)
    with caplog.at_level(logging.WARNING, logger="dealerassist.compiled"):
        total = compiled()(_loop_without_a_source_file())
        again = compiled(inline=True)(_loop_without_a_source_file())
    assert total(np.arange(5.0)) == 10.0
    assert again(np.ones(3)) == 3.0
    warnings = [r for r in caplog.records if "NUMBA_CACHE_DIR" in r.getMessage()]
    assert len(warnings) == 1  # once a process, not once a loop


@needs_numba
def test_a_loop_numba_cannot_type_still_fails_loudly() -> None:
    """Only the cache's absence is forgiven: a loop that does not compile says so when called."""
    broken = compiled()(lambda values: values.no_such_attribute)
    with pytest.raises(Exception, match="no_such_attribute"):
        broken(np.ones(2))


def test_without_numba_a_loop_runs_as_written_and_says_so_once(monkeypatch, caplog) -> None:
    """numba is the optional ``fast`` extra: where it is missing the loops run as plain Python,
    and the first call of any of them says so (once a process, with the install line)."""
    monkeypatch.setattr(compiled_module, "numba", None)
    monkeypatch.setattr(compiled_module, "_warned_uncompiled", False)
    source = _loop_without_a_source_file()
    with caplog.at_level(logging.WARNING, logger="dealerassist.compiled"):
        total = compiled()(source)
        again = compiled(inline=True)(source)
        assert not caplog.records  # nothing said until a loop runs
        assert total(np.arange(5.0)) == 10.0
        assert again(np.ones(3)) == 3.0
        assert total(np.ones(2)) == 2.0
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1, said
    assert "uncompiled" in said[0] and "dealerassist[fast]" in said[0]
    assert total.__name__ == "total" and total.__wrapped__ is source


@pytest.mark.parametrize(("value", "expected"), [("1", False), ("0", True), ("", True)])
def test_the_no_numba_variable_is_honoured(value: str, expected: bool) -> None:
    """``DEALERASSIST_NO_NUMBA=1`` runs the loops uncompiled where numba is installed (to measure
    or test them so); 0 or empty leaves them compiled."""
    env = {**os.environ, compiled_module.NO_NUMBA: value}
    code = "from dealerassist.compiled import is_compiled; print(is_compiled())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(expected and HAS_NUMBA)
