"""Pay tables and table configs load from TOML and name file, key and problem on any error."""

from pathlib import Path

import pytest

from dealerassist.core.configfiles import bundled_dir
from dealerassist.core.money import Odds
from dealerassist.core.paytables import FixedAward, MeterAward, OddsAward, PushAward, parse_award
from dealerassist.errors import ConfigError
from dealerassist.tablefiles.paytables import load_paytable_file, paytables_from_mapping


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
    with pytest.raises(ConfigError, match=r"\.toml: not valid TOML") as broken:
        load_paytable_file(_write(tmp_path, "game = \n"))
    assert broken.value.key == "-"  # the whole file: the message names no key


def test_shipped_paytable_files_all_load() -> None:

    files = sorted((bundled_dir() / "paytables").glob("*.toml"))
    for path in files:
        tables = load_paytable_file(path)
        assert tables.game == path.stem
        for bet, name in tables.defaults.items():
            assert tables.get(name).bet == bet


def _shipped_table_with(tmp_path: Path, slug: str, old: str, new: str) -> Path:

    text = (bundled_dir() / "tables" / f"{slug}.toml").read_text(encoding="utf-8")
    assert old in text
    return _write(tmp_path, text.replace(old, new, 1))


def test_every_shipped_table_file_loads() -> None:
    from dealerassist.games import game_class
    from dealerassist.tablefiles.tables import load_table

    files = sorted((bundled_dir() / "tables").glob("*.toml"))
    assert len(files) == 5
    for path in files:
        table = load_table(path)
        assert table.rules.game == path.stem
        assert set(table.rules.options) <= set(game_class(path.stem).known_options())


def test_a_misspelt_option_is_refused_naming_file_key_and_the_known_names(tmp_path: Path) -> None:
    from dealerassist.games import game_class
    from dealerassist.tablefiles.tables import load_table

    path = _shipped_table_with(
        tmp_path, "three-card-poker", "pair_plus_requires_ante", "pair_plus_requires_antee"
    )
    with pytest.raises(ConfigError) as err:
        load_table(path)
    assert err.value.file == str(path)
    assert err.value.key == "options.pair_plus_requires_antee"
    known = sorted(game_class("three-card-poker").known_options())
    assert known == [
        "camera_must_match_shoe",
        "deal_order",
        "pair_plus_requires_ante",
        "recognition_threshold",
    ]
    assert err.value.problem.startswith(f"unknown option (known: {', '.join(known)})")
    assert err.value.problem.endswith("did you mean 'pair_plus_requires_ante'?")
    assert str(err.value).startswith(f"{path}: options.pair_plus_requires_antee: unknown option")


def test_an_option_of_another_game_is_refused_without_a_guess(tmp_path: Path) -> None:
    from dealerassist.tablefiles.tables import load_table

    path = _shipped_table_with(tmp_path, "perfect-pairs-blackjack", "[options]\n", "[options]\ndice = 3\n")
    with pytest.raises(ConfigError) as err:
        load_table(path)
    assert err.value.key == "options.dice"
    assert "blackjack_pays, camera_must_match_shoe, hole_card_first" in err.value.problem
    assert "did you mean" not in err.value.problem


def test_tracker_options_are_accepted_at_every_game(tmp_path: Path) -> None:
    from dealerassist.tablefiles.tables import load_table

    for path in sorted((bundled_dir() / "tables").glob("*.toml")):
        body = "[options]\nrecognition_threshold = 0.95\ncamera_must_match_shoe = false\n"
        copy = _shipped_table_with(tmp_path, path.stem, "[options]\n", body)
        options = load_table(copy).rules.options
        assert options["recognition_threshold"] == 0.95 and options["camera_must_match_shoe"] is False


@pytest.mark.parametrize(
    "line, key, problem",
    [
        ('camera_must_match_shoe = "false"', "camera_must_match_shoe", "must be true or false"),
        ("recognition_threshold = 90", "recognition_threshold", "must be a number from 0 to 1, got 90"),
    ],
)
def test_a_bad_tracker_option_value_is_refused_naming_it(
    tmp_path: Path, line: str, key: str, problem: str
) -> None:
    from dealerassist.tablefiles.tables import load_table

    path = _shipped_table_with(tmp_path, "four-card-poker", "[options]\n", f"[options]\n{line}\n")
    with pytest.raises(ConfigError) as err:
        load_table(path)
    assert (err.value.file, err.value.key) == (str(path), f"options.{key}")
    assert problem in err.value.problem


def test_run_check_stops_on_a_misspelt_option_with_one_clean_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What an operator sees from ``dealerassist run --check``: exit 1 and FILE: KEY: problem."""
    from dealerassist.cli import main

    path = _shipped_table_with(tmp_path, "perfect-pairs-blackjack", "blackjack_pays", "blackjack_pay")
    assert main(["run", "--check", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"dealerassist: error: {path}: options.blackjack_pay: unknown option (known: ")
    assert err.rstrip().endswith("did you mean 'blackjack_pays'?")
    assert "Traceback" not in err
