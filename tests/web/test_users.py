"""Accounts: scrypt hashes with a salt per user, no weak or duplicate accounts, disabled means out."""

from __future__ import annotations

from pathlib import Path

import pytest

from dealerassist.web.users import UserError, UserStore, check_password, hash_password


def test_hash_is_salted_scrypt_and_checks_only_the_right_password() -> None:
    first, second = hash_password("correct horse", n=2**10), hash_password("correct horse", n=2**10)
    assert first.startswith("scrypt$1024$8$1$") and first != second
    assert check_password("correct horse", first) and check_password("correct horse", second)
    assert not check_password("correct horsf", first)
    assert not check_password("correct horse", "md5$abc") and not check_password("x", "garbage")


def test_default_cost_is_the_strong_one() -> None:
    assert hash_password("long enough pw").startswith("scrypt$32768$8$1$")


@pytest.mark.parametrize(
    ("name", "role", "password", "field"),
    [
        ("Bad Name", "dealer", "long-enough-1", "name"),
        ("x", "dealer", "long-enough-1", "name"),
        ("bob", "pitboss", "long-enough-1", "role"),
        ("bob", "dealer", "short", "password"),
        ("bobbobbobbob", "dealer", "BOBBOBBOBBOB", "password"),
    ],
)
def test_bad_accounts_are_refused_naming_the_field(
    tmp_path: Path, name: str, role: str, password: str, field: str
) -> None:
    store = UserStore(tmp_path / "u.sqlite3", scrypt_n=2**10)
    with pytest.raises(UserError) as err:
        store.add(name, role, password)
    assert err.value.field == field
    assert store.count() == 0


def test_authenticate_duplicate_disable_and_password_change(tmp_path: Path) -> None:
    store = UserStore(tmp_path / "u.sqlite3", scrypt_n=2**10)
    store.add("Dana", "dealer", "dealer-pass-1")
    with pytest.raises(UserError, match="already exists"):
        store.add("dana", "admin", "another-pass-1")
    assert store.authenticate("DANA ", "dealer-pass-1").role == "dealer"
    assert store.authenticate("dana", "dealer-pass-2") is None
    assert store.authenticate("nobody", "dealer-pass-1") is None
    store.set_password("dana", "a-new-password")
    assert store.authenticate("dana", "dealer-pass-1") is None
    assert store.authenticate("dana", "a-new-password") is not None
    store.set_active("dana", False)
    assert store.authenticate("dana", "a-new-password") is None
    assert store.get("dana").active is False
    with pytest.raises(UserError):
        store.set_active("ghost", True)


def test_passwords_are_never_stored_in_clear_and_the_secret_key_persists(tmp_path: Path) -> None:
    path = tmp_path / "u.sqlite3"
    store = UserStore(path, scrypt_n=2**10)
    store.add("ada", "admin", "admin-pass-123")
    key = store.secret_key()
    store.close()
    assert b"admin-pass-123" not in path.read_bytes()
    again = UserStore(path, scrypt_n=2**10)
    assert again.secret_key() == key
    assert [u.name for u in again.all()] == ["ada"]
