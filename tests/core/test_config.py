"""Pay tables and table configs load from TOML and name file, key and problem on any error."""

from pathlib import Path

import pytest

from dealerassist.core.money import Odds
from dealerassist.core.paytables import (
    FixedAward,
    MeterAward,
    OddsAward,
    PushAward,
    load_paytable_file,
    parse_award,
    paytables_from_mapping,
)
from dealerassist.errors import ConfigError


def test_award_forms() -> None:
    assert parse_award("40 to 1") == OddsAward(Odds(40))
    assert parse_award("$5,000") == FixedAward(500_000)
    assert parse_award("10% meter") == MeterAward(10)
    assert parse_award("push") == PushAward()
    assert parse_award("100% meter").pay(100, meter=1_000_001).amount == 1_000_001
    assert parse_award("3 to 2").pay(500, chip=100).amount == 700


@pytest.mark.parametrize("text", ["lots", "150% meter", "$-5", "3 to 0", True])
def test_bad_awards_are_refused(text: object) -> None:
    with pytest.raises(ValueError):
        parse_award(text)


def _write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "x.toml"
    path.write_text(body)
    return path


def test_paytable_errors_name_file_and_key(tmp_path: Path) -> None:
    bad = _write(
        tmp_path, 'game = "three-card-poker"\n[tables.t]\nbet = "pair-plus"\n[tables.t.pays]\npair = "lots"\n'
    )
    with pytest.raises(ConfigError) as err:
        load_paytable_file(bad)
    assert str(bad) in str(err.value) and "tables.t.pays.pair" in str(err.value)
    with pytest.raises(ConfigError, match=r"defaults\.pair-plus"):
        paytables_from_mapping(
            {
                "game": "three-card-poker",
                "defaults": {"pair-plus": "nope"},
                "tables": {"t": {"bet": "pair-plus", "pays": {"pair": 1}}},
            },
            "m",
        )
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_paytable_file(_write(tmp_path, "game = \n"))


def test_shipped_paytable_files_all_load() -> None:
    from dealerassist.core.paytables import PAYTABLES_DIR

    files = sorted(PAYTABLES_DIR.glob("*.toml"))
    for path in files:
        tables = load_paytable_file(path)
        assert tables.game == path.stem
        for bet, name in tables.defaults.items():
            assert tables.get(name).bet == bet
