"""``dealerassist bench NAME [ARGS...]``: run a benchmark from the repository's ``bench/`` folder.

How to add one (no edit here): create ``bench/NAME.py`` whose module docstring's first line says
what it measures and which defines ``main(argv: list[str] | None = None) -> int``. End it with
``if __name__ == "__main__": sys.exit(main())`` so ``python bench/NAME.py`` runs it as well.
``dealerassist bench`` (no name) lists what it finds; ``dealerassist bench NAME --help`` shows the
benchmark's own options, since everything after NAME is handed to its ``main``.

Benchmarks print timings and ratios against peers measured in the same run, never pass/fail.
The folder is found beside the ``dealerassist`` package (a source checkout or an editable
install); ``DEALERASSIST_BENCH_DIR`` points elsewhere.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from dealerassist.errors import DealerAssistError

BENCH_DIR_ENV = "DEALERASSIST_BENCH_DIR"


class BenchError(DealerAssistError):
    """A benchmark that cannot be found or loaded."""


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (nearest rank) of ``values``; NaN when there are none. Shared by
    the benchmarks so every p50/p99 they print means the same thing."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def bench_dir() -> Path:
    configured = os.environ.get(BENCH_DIR_ENV)
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[2] / "bench"


def available() -> dict[str, str]:
    """Benchmark name to the first line of its docstring, for every ``bench/*.py`` with a main."""
    folder = bench_dir()
    found: dict[str, str] = {}
    for path in sorted(folder.glob("*.py")) if folder.is_dir() else []:
        if path.name.startswith("_"):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, OSError):
            found[path.stem] = "(cannot be read)"
            continue
        if any(isinstance(node, ast.FunctionDef) and node.name == "main" for node in tree.body):
            doc = ast.get_docstring(tree) or ""
            found[path.stem] = doc.strip().splitlines()[0] if doc.strip() else ""
    return found


def load(name: str) -> ModuleType:
    known = available()
    if name not in known:
        listing = ", ".join(known) or "none"
        raise BenchError(f"no benchmark {name!r} in {bench_dir()} (available: {listing})")
    path = bench_dir() / f"{name}.py"
    # Benchmarks run in a source checkout and share the test suite's tooling (tests.pgserver's
    # throwaway PostgreSQL): the checkout's root is importable while they run.
    root = str(bench_dir().resolve().parent)
    if root not in sys.path:
        sys.path.append(root)
    spec = importlib.util.spec_from_file_location(f"dealerassist_bench_{name}", path)
    if spec is None or spec.loader is None:
        raise BenchError(f"cannot load benchmark {name!r} from {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    except ImportError as exc:
        raise BenchError(f"benchmark {name!r} needs {exc.name or exc}: install the bench extras") from None
    return module


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench",
        help="run a benchmark from bench/ (no name: list them)",
        description="Run bench/NAME.py; arguments after NAME go to the benchmark.",
    )
    p.add_argument("name", nargs="?", help="benchmark name (file name in bench/ without .py)")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the benchmark")
    p.set_defaults(handler=_bench)


def _bench(args: argparse.Namespace) -> int:
    if not args.name:
        for name, summary in available().items():
            print(f"{name:14} {summary}")
        return 0
    module = load(args.name)
    return int(module.main(list(args.args)) or 0)
