"""Sixteen kinds of tampering against a keyed log with a floor copy beside it (real PostgreSQL).

``audit verify --against`` must catch all sixteen and name the first altered record; the four that
rewrite the head (the plain hash chain verifies again after them) must also fail the MAC check
alone, when the attacker does not hold the key.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dealerassist.cli import main
from tests.floor.conftest import Floor, Played, copy_log
from tests.floor.tampering import ALL, HEAD_REWRITTEN

pytestmark = pytest.mark.postgres


def _verify(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["audit", "verify", *args])
    return code, capsys.readouterr().out


def test_the_kit_has_sixteen_kinds_four_of_them_rewriting_the_head() -> None:
    assert len(ALL) == 16 and len(HEAD_REWRITTEN) == 4


def test_an_untouched_copy_matches_its_floor_copy(
    floor: Floor, played: Played, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = copy_log(played.db, tmp_path)
    code, out = _verify(capsys, "--db", str(copy), "--against", floor.auditor, "--keys", str(played.keys))
    assert code == 0, out
    assert "chain intact" in out and "MAC ok" in out and "head sealed" in out
    assert "floor: the same" in out and "(stream demo)" in out


@pytest.mark.parametrize("kind", list(ALL))
def test_each_kind_of_tampering_is_caught_against_the_floor(
    kind: str, floor: Floor, played: Played, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = copy_log(played.db, tmp_path)
    first = ALL[kind](copy)
    # Without the key: the floor copy alone must catch it.
    code, out = _verify(
        capsys, "--db", str(copy), "--against", floor.auditor, "--keys", str(tmp_path / "none")
    )
    assert code == 1, out
    if first is None:  # only the head was changed: the records still match the floor's
        assert "TAMPERED" in out and "floor: the same" in out
    else:
        assert f"DIFFERS FROM FLOOR: first differing record {first}:" in out, out


@pytest.mark.parametrize("kind", list(HEAD_REWRITTEN))
def test_head_rewrites_pass_the_plain_chain_but_fail_the_mac(
    kind: str, played: Played, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = copy_log(played.db, tmp_path)
    HEAD_REWRITTEN[kind](copy)
    code, out = _verify(capsys, "--db", str(copy), "--keys", str(tmp_path / "no-keys"))
    assert code == 0 and "chain intact" in out, out  # what the issue found: the chain alone is fooled
    assert "MAC NOT CHECKED for tcp-1" in out  # ... and verify says it could not check the MAC
    code, out = _verify(capsys, "--db", str(copy), "--keys", str(played.keys))
    assert code == 1, out
    assert "chain intact" in out and "MAC FAILED" in out, out
