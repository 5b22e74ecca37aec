"""numba's compiler for the hot loops (the card reader's, the protection reviewers' exact counts),
keeping what it compiles where it can.

numba keeps compiled loops beside their module, under ``NUMBA_CACHE_DIR``, or in the user's
cache directory. Where it can write none of them (a read-only install run by a user with no
writable home), asking for its cache fails as the module is imported. The loops must run all
the same: the loops are then compiled afresh at each start (a few seconds), and a warning says
where to point ``NUMBA_CACHE_DIR``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

import numba

Function = TypeVar("Function", bound=Callable[..., Any])

log = logging.getLogger(__name__)
_warned = False


def compiled(inline: bool = False) -> Callable[[Function], Function]:
    """``numba.njit`` (no GIL held; with ``inline``, inlined into its callers), cached where
    numba can keep a cache."""

    def compile_loop(function: Function) -> Function:
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
