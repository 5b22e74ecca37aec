"""Alpha protocol vectors (checksums added up by hand) and noise into the sign's decoder."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.emulators.sign import SignEmulator
from firmware_bridge.sign import alpha
from firmware_bridge.sign.layout import MEMORY, SignState, printable

SYNC = b"\x00\x00\x00\x00\x00\x01Z00"


def test_string_write_bytes() -> None:
    # STX 2 + 'G' 71 + '1' 49 + "$1,234.56" ('$'36 '1'49 ','44 '2'50 '3'51 '4'52 '.'46 '5'53 '6'54 = 435)
    # + ETX 3 = 560 = 0x0230
    assert alpha.write_string("1", b"$1,234.56") == SYNC + b"\x02G1$1,234.56\x030230\x04"


def test_memory_configuration_bytes() -> None:
    # "AAU0100FF00": A65 A65 U85 0 48 1 49 0 48 0 48 F70 F70 0 48 0 48 = 644
    # "1BU00100000": 1 49 B66 U85, seven '0' (336) and one '1' (49) = 585
    # STX 2 + 'E' 69 + '$' 36 + 644 + 585 + ETX 3 = 1339 = 0x053B
    assert alpha.memory_config(list(MEMORY)) == SYNC + b"\x02E$AAU0100FF001BU00100000\x03053B\x04"


def test_normal_text_file_calls_the_amount_string() -> None:
    # ESC ' ' 'b' (middle line, hold), 0x1C '2' (green), "JACKPOT ", 0x10 '1' (call STRING 1)
    # STX 2 + 'A' 65 + label 'A' 65 + 27 + 32 + 98 + 28 + 50 + "JACKPOT " 556 + 16 + 49 + ETX 3 = 991 = 0x03DF
    content = SignState(cents=1).text_file()
    assert content == b"\x1b b\x1c2JACKPOT \x101"
    assert alpha.write_text("A", content) == SYNC + b"\x02AA\x1b b\x1c2JACKPOT \x101\x0303DF\x04"


def test_addressed_packet_and_header_checks() -> None:
    assert alpha.packet("G", b"1x", type_code="!", address="01").startswith(b"\x00" * 5 + b"\x01!01\x02G1x")
    with pytest.raises(ValueError, match="framing"):
        alpha.write_string("1", b"\x03")
    with pytest.raises(ValueError, match="label"):
        alpha.write_string("AB", b"x")
    with pytest.raises(ValueError, match="size"):
        alpha.MemoryEntry("1", "string", 0).encode()


def test_fault_and_win_layouts() -> None:
    fault = SignState(cents=100, fault="CONTROLLER LINK LOST").text_file()
    assert fault.startswith(b"\x1b c\x1c3CONTROLLER LINK LOST\x1b b")
    # a win carries its own amount: one TEXT write switches the whole face, no STRING beside it
    win = SignState(mode="win", table="PP-2", cents=1_000_00).text_file()
    assert win == b"\x1b c\x1c1WINNER TABLE PP-2\x1b b\x1c1$1,000.00"
    last = SignState(mode="last-known", cents=12_345_67, fault="LINK DOWN").text_file()
    assert last == b"\x1b c\x1c3LINK DOWN\x1b b\x1c3LAST KNOWN $12,345.67"
    # no amount read: no amount page at all, never "$0.00"
    assert SignState(fault="LINK DOWN").text_file() == b"\x1b c\x1c3LINK DOWN"
    assert SignState().text_file() == b"" and SignState().amount_text() == b""
    assert printable("caf\u00e9\x03!") == b"caf??!"


def test_decoder_reports_damage() -> None:
    good = alpha.write_string("1", b"$5.00")
    bad = bytearray(good)
    bad[-3] = ord("0") if bad[-3] != ord("0") else ord("1")
    out = alpha.AlphaDecoder().feed(
        b"junk" + good[:12] + good + bytes(bad) + good.replace(b"\x03", b"\x03\x04")[:-5]
    )
    reasons = [o.reason if isinstance(o, alpha.AlphaProblem) else o.command for o in out]
    assert reasons == ["garbage", "truncated", "G", "bad-checksum", "no-checksum"]


def test_emulator_keeps_files_and_runs_pages() -> None:
    sign = SignEmulator(address="07")
    wire = alpha.memory_config(list(MEMORY))
    wire += alpha.write_string("1", b"$9.99") + alpha.write_text(
        "A", SignState(cents=1, fault="LINK").text_file()
    )
    wire += alpha.write_string("1", b"$1", address="03")
    wire += alpha.write_string("9", b"nowhere")
    sign.on_bytes(wire, 0.0)
    assert sign.text() == "LINK | JACKPOT $9.99"
    assert [p.mode for p in sign.pages()] == ["flash", "hold"]
    assert sign.problems == {"not-for-me": 1, "no-string-file": 1}
    sign.on_bytes(alpha.write_string("1", b"$123456789012345678"), 0.0)
    assert sign.string_file() == "$123456789012345" and sign.problems["file-too-long"] == 1
    png = sign.render_png()
    assert png.startswith(b"\x89PNG")


@settings(max_examples=100, deadline=None, derandomize=True)
@given(noise=st.binary(max_size=200), amounts=st.lists(st.integers(0, 10**11), min_size=1, max_size=4))
def test_every_packet_after_noise_is_read(noise: bytes, amounts: list[int]) -> None:
    packets = [alpha.write_string("1", b"$%d" % a) for a in amounts]
    out = alpha.AlphaDecoder().feed(noise + b"".join(packets))
    read = [o for o in out if isinstance(o, alpha.AlphaPacket)]
    assert [r.data for r in read[len(read) - len(amounts) :]] == [b"1$%d" % a for a in amounts]


@settings(max_examples=100, deadline=None, derandomize=True)
@given(data=st.binary(max_size=400))
def test_emulator_survives_any_bytes(data: bytes) -> None:
    sign = SignEmulator()
    sign.on_bytes(data, 0.0)
    sign.on_bytes(alpha.write_text("A", b"OK"), 0.0)
    assert sign.text().endswith("OK")


@settings(max_examples=100, deadline=None, derandomize=True)
@given(
    table=st.text(max_size=30),
    fault=st.one_of(st.none(), st.text(max_size=80)),
    cents=st.integers(0, 99_999_999_999),
    mode=st.sampled_from(["amount", "last-known", "win", "pending"]),
)
def test_any_state_encodes_and_reads_back(table: str, fault: str | None, cents: int, mode: str) -> None:
    """Whatever a table is called or a fault says, the sign gets a clean frame it can show."""
    state = SignState(mode=mode, cents=cents, table=table, fault=fault)  # type: ignore[arg-type]
    sign = SignEmulator()
    wire = alpha.memory_config(list(MEMORY)) + alpha.write_string("1", state.amount_text())
    sign.on_bytes(wire + alpha.write_text("A", state.text_file()), 0.0)
    assert not sign.problems
    shown = sign.text()
    assert shown.endswith(state.amount_text().decode())
    if fault and printable(fault).strip():
        assert shown.startswith(printable(fault).decode().strip())
