"""Reading a ``[progressive]`` section: exact values, awards from the section or the pay table, errors."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dealerassist.core.paytables import FixedAward, MeterAward
from dealerassist.errors import ConfigError
from dealerassist.progressive.params import params_from_dict, params_from_section
from dealerassist.tablefiles.paytables import load_paytables
from tests.progressive.support import SECTION, make_params


def test_a_section_reads_exactly() -> None:
    params = make_params(limit="250000")
    r = params.rates
    assert (params.name, params.bet, params.wager) == ("fortune-link", "progressive", 100)
    assert (r.base, r.reset, r.limit) == (1_000_000, 500_000, 25_000_000)
    assert (r.increment, r.reserve) == (Fraction("15.5"), Fraction("4.25"))
    assert params.award("seven-card-straight-flush") == MeterAward(Fraction(100))
    assert params.award("five-aces") == FixedAward(100_000)
    assert params.award("pair") is None


def test_logged_parameters_read_back_the_same() -> None:
    params = make_params(limit="250000", link="postgresql://db/pit")
    assert params_from_dict(params.to_dict()) == params


def test_awards_default_to_the_table_pay_table() -> None:
    pays = load_paytables("face-up-pai-gow").get("progressive-example").pays
    section = {k: v for k, v in SECTION.items() if k != "awards"}
    params = params_from_section(section, "t.toml", paytable_awards=dict(pays))
    assert params.award("royal-flush-royal-match") == MeterAward(Fraction(10))
    assert params.award("four-of-a-kind") == FixedAward(2500)


@pytest.mark.parametrize(
    ("change", "key", "problem"),
    [
        ({"wager": "0"}, "progressive.wager", "above zero"),
        ({"increment": "lots"}, "progressive.increment", "cannot read"),
        ({"increment": "101"}, "progressive.increment", "0..100"),
        ({"base": 5.5}, "progressive.base", "must be dollars"),
        ({"limit": "50"}, "progressive", "limit"),
        ({"link": "mysql://x"}, "progressive.link", "postgresql://"),
        ({"colour": "red"}, "progressive.colour", "unknown key"),
        ({"awards": {"pair": "3 to 1"}}, "progressive.awards.pair", "% meter"),
        ({"awards": {"pair": "lots"}}, "progressive.awards.pair", "cannot read"),
    ],
)
def test_bad_sections_name_the_key_and_the_problem(change: dict, key: str, problem: str) -> None:
    with pytest.raises(ConfigError) as caught:
        params_from_section({**SECTION, **change}, "pit.toml")
    assert caught.value.file == "pit.toml" and caught.value.key == key
    assert problem in caught.value.problem


def test_a_missing_key_is_named() -> None:
    section = {k: v for k, v in SECTION.items() if k != "increment"}
    with pytest.raises(ConfigError, match=r"progressive\.increment: missing"):
        params_from_section(section, "pit.toml")
