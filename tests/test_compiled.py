"""The reader's loops compile even where numba can keep no cache of them."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from dealerassist import compiled as compiled_module
from dealerassist.compiled import compiled


def _loop_without_a_source_file():
    """A loop numba can find no cache place for: its source is no file (so none beside it, under
    NUMBA_CACHE_DIR or in the user's cache), as for a read-only install run without a home."""
    namespace: dict[str, object] = {}
    source = "def total(values):\n    sum = 0.0\n    for v in values:\n        sum += v\n    return sum\n"
    exec(compile(source, "<generated>", "exec"), namespace)
    return namespace["total"]


def test_a_loop_without_a_cache_place_still_compiles_and_says_so(monkeypatch, caplog) -> None:
    monkeypatch.setattr(compiled_module, "_warned", False)
    with caplog.at_level(logging.WARNING, logger="dealerassist.compiled"):
        total = compiled()(_loop_without_a_source_file())
        again = compiled(inline=True)(_loop_without_a_source_file())
    assert total(np.arange(5.0)) == 10.0
    assert again(np.ones(3)) == 3.0
    warnings = [r for r in caplog.records if "NUMBA_CACHE_DIR" in r.getMessage()]
    assert len(warnings) == 1  # once a process, not once a loop


def test_a_loop_numba_cannot_type_still_fails_loudly() -> None:
    """Only the cache's absence is forgiven: a loop that does not compile says so when called."""
    broken = compiled()(lambda values: values.no_such_attribute)
    with pytest.raises(Exception, match="no_such_attribute"):
        broken(np.ones(2))
