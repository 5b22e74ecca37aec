"""numba's compiler for the hot loops (the card reader's, the protection reviewers' exact counts),
when it is installed: an optional extra (``pip install 'dealerassist[fast]'``), since numba and
llvmlite add some 200 MB to an install.

Without it (not installed, or ``DEALERASSIST_NO_NUMBA=1`` set to measure or test the plain
loops) a loop runs as the plain Python it is written in: the same results, only slower, and one
warning at the first call says so and how to install the extra.

numba keeps compiled loops beside their module, under ``NUMBA_CACHE_DIR``, or in the user's
cache directory. Where it can write none of them (a read-only install run by a user with no
writable home), asking for its cache fails as the module is imported. The loops must run all
the same: the loops are then compiled afresh at each start (a few seconds), and a warning says
where to point ``NUMBA_CACHE_DIR``.
"""

from __future__ import annotations

import functools
import importlib
import logging
import os
from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar

Function = TypeVar("Function", bound=Callable[..., Any])

NO_NUMBA = "DEALERASSIST_NO_NUMBA"  # set to 1: the loops run uncompiled even where numba is installed
EXTRA = "fast"  # the install extra that brings numba

log = logging.getLogger(__name__)
_warned = False
_warned_uncompiled = False


def _numba() -> ModuleType | None:
    """numba, unless it is not installed or ``NO_NUMBA`` asks to do without it."""
    if os.environ.get(NO_NUMBA, "") not in ("", "0"):
        return None
    try:
        return importlib.import_module("numba")
    except ImportError:
        return None


numba = _numba()


def is_compiled() -> bool:
    """Whether the loops run compiled in this process."""
    return numba is not None


def compiled(inline: bool = False) -> Callable[[Function], Function]:
    """``numba.njit`` (no GIL held; with ``inline``, inlined into its callers), cached where
    numba can keep a cache; without numba, the function itself, warning once at its first call."""

    def compile_loop(function: Function) -> Function:
        if numba is None:
            return _uncompiled(function)
        options: dict[str, Any] = {"nogil": True, "inline": "always" if inline else "never"}
        try:
            return numba.njit(cache=True, **options)(function)
        except RuntimeError as error:  # numba found no place it can write its cache
            global _warned
            if not _warned:
                log.warning(
                    "compiled loops are not kept between starts (%s): set NUMBA_CACHE_DIR to a "
                    "writable directory to start faster",
                    error,
                )
                _warned = True
            return numba.njit(**options)(function)

    return compile_loop


def _uncompiled(function: Function) -> Function:
    """``function`` as it is, saying once a process, at the first call of any such loop, that the
    loops run uncompiled."""

    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        global _warned_uncompiled
        if not _warned_uncompiled:
            _warned_uncompiled = True
            why = f"{NO_NUMBA} is set" if os.environ.get(NO_NUMBA, "") not in ("", "0") else "no numba"
            log.warning(
                "the card reader's and protection's loops run uncompiled (%s): correct but slower; "
                "pip install 'dealerassist[%s]' compiles them",
                why,
                EXTRA,
            )
        return function(*args, **kwargs)

    return run  # type: ignore[return-value]
