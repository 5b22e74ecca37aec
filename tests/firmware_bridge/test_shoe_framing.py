"""Byte-exact vectors of the shoe protocol and noise thrown at its decoder."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from dealerassist.core.cards import JOKER, Card
from firmware_bridge.shoe.crc import CHECK_VALUE, crc16_ccitt_false
from firmware_bridge.shoe.framing import MAX_PAYLOAD, Frame, FrameDecoder, FrameProblem, encode_frame
from firmware_bridge.shoe.messages import (
    T_ACK,
    T_CARD,
    T_HEARTBEAT,
    T_HELLO,
    T_NAK,
    T_REFUSE,
    T_STATUS,
    CardDrawn,
    DaShoeProtocol,
    Heartbeat,
    Hello,
    Malformed,
    StatusReport,
    card_payload,
    card_payload_v2,
    decode_message,
    heartbeat_payload,
    refuse_payload,
    status_payload,
)

T0 = 1_764_000_000_000  # 2025-11-24T16:00:00Z in milliseconds = 0x0000019AB697E800


def test_crc_check_value() -> None:
    assert crc16_ccitt_false(b"123456789") == CHECK_VALUE == 0x29B1


def _bitwise_crc(data: bytes) -> int:
    """The CRC as the firmware computes it, one bit at a time: the reference the C one must match."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


@given(st.binary(max_size=300))
def test_crc_matches_the_bitwise_reference(data: bytes) -> None:
    assert crc16_ccitt_false(data) == _bitwise_crc(data)


def test_ack_frame_bytes() -> None:
    # body 01 06. CRC by hand, shifting MSB-first with poly 0x1021 from 0xFFFF:
    #   byte 0x01: 0xFFFF ^ 0x0100 = 0xFEFF -> EDDF CB9F 871F 1E1F 3C3E 787C F0F8 F1D1
    #   byte 0x06: 0xF1D1 ^ 0x0600 = 0xF7D1 -> FF83 EF27 CE6F 8CFF 09DF 13BE 277C 4EF8
    # so the frame is 7E | 01 06 | 4E F8 | 7F.
    assert encode_frame(Frame(1, T_ACK)) == bytes.fromhex("7e 01 06 4e f8 7f")


def test_nak_and_hello_request_bytes() -> None:
    assert encode_frame(Frame(0, T_NAK)) == bytes.fromhex("7e 00 15 5f 9b 7f")
    assert encode_frame(Frame(0, T_HELLO)) == bytes.fromhex("7e 00 01 0d 2e 7f")


def test_card_frame_with_stuffing() -> None:
    # seq 0x7E and shoe sequence 0x7D both need escaping: 7E -> 7D 5E, 7D -> 7D 5D.
    # payload: shoe seq 0000007D, rank 0A (ten), suit 48 ('H'), time 0000019AB697E800.
    # CRC over the unstuffed body 7E 10 0000007D 0A 48 0000019AB697E800 = 0xF903.
    frame = encode_frame(Frame(0x7E, T_CARD, card_payload(0x7D, Card.parse("TH"), T0)))
    assert frame == bytes.fromhex("7e 7d 5e 10 00 00 00 7d 5d 0a 48 00 00 01 9a b6 97 e8 00 f9 03 7f")
    (decoded,) = FrameDecoder().feed(frame)
    assert isinstance(decoded, Frame)
    assert decode_message(decoded) == CardDrawn(0x7D, Card.parse("TH"), T0, link_seq=0x7E)


def test_status_frame_bytes() -> None:
    frame = encode_frame(Frame(3, T_STATUS, status_payload("jam", T0, "J1")))
    assert frame == bytes.fromhex("7e 03 12 02 00 00 01 9a b6 97 e8 00 4a 31 ac f0 7f")
    (decoded,) = FrameDecoder().feed(frame)
    assert decode_message(decoded) == StatusReport("jam", T0, "J1", link_seq=3)  # type: ignore[arg-type]


def test_joker_and_unreadable_cards_round_trip() -> None:
    for card in (JOKER, None, Card.parse("2c")):
        (frame,) = FrameDecoder().feed(encode_frame(Frame(9, T_CARD, card_payload(5, card, T0))))
        assert decode_message(frame) == CardDrawn(5, card, T0, link_seq=9)  # type: ignore[arg-type]


def test_split_garbage_and_bad_crc_are_reported_not_raised() -> None:
    good = encode_frame(Frame(1, T_CARD, card_payload(1, Card.parse("AS"), T0)))
    damaged = bytearray(good)
    damaged[5] ^= 0x04
    decoder = FrameDecoder()
    out = decoder.feed(b"\x00junk" + good[:7])
    assert out == [FrameProblem("garbage", b"\x00junk")]
    out = decoder.feed(good[7:] + bytes(damaged) + good[:3] + good)
    kinds = [o.reason if isinstance(o, FrameProblem) else "frame" for o in out]
    assert kinds == ["frame", "bad-crc", "truncated", "frame"]


def test_wrong_payloads_become_malformed() -> None:
    assert isinstance(decode_message(Frame(1, T_CARD, b"\x00")), Malformed)
    assert isinstance(decode_message(Frame(1, 0x55, b"")), Malformed)
    bad_suit = card_payload(1, Card.parse("AS"), 0)[:5] + b"Z" + bytes(8)
    assert "suit" in decode_message(Frame(1, T_CARD, bad_suit)).reason  # type: ignore[union-attr]
    assert "status code" in decode_message(Frame(1, T_STATUS, bytes([9]) + bytes(8))).reason  # type: ignore[union-attr]


def test_protocol_naks_only_damaged_frames() -> None:
    proto = DaShoeProtocol()
    assert proto.reject(FrameProblem("bad-crc", b"")) == encode_frame(Frame(0, T_NAK))
    assert proto.reject(FrameProblem("garbage", b"xx")) == b""


frames = st.builds(
    Frame,
    seq=st.integers(0, 255),
    type=st.integers(0, 255),
    payload=st.binary(max_size=MAX_PAYLOAD),
)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(noise=st.binary(max_size=200), batch=st.lists(frames, min_size=1, max_size=5), cut=st.integers(1, 40))
def test_every_frame_after_noise_is_read(noise: bytes, batch: list[Frame], cut: int) -> None:
    wire = b"".join(encode_frame(f) for f in batch)
    decoder = FrameDecoder()
    got: list[Frame | FrameProblem] = []
    stream = noise + wire
    for start in range(0, len(stream), cut):
        got.extend(decoder.feed(stream[start : start + cut]))
    frames_read = [g for g in got if isinstance(g, Frame)]
    # noise may itself contain a valid frame by chance; ours must be the last ones read, in order
    assert frames_read[len(frames_read) - len(batch) :] == batch


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    frame=frames, flips=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 7)), min_size=1, max_size=3)
)
def test_bit_flips_never_pass_as_a_different_frame(frame: Frame, flips: list[tuple[int, int]]) -> None:
    wire = bytearray(encode_frame(frame))
    for pos, bit in flips:
        wire[pos % len(wire)] ^= 1 << bit
    follower = Frame(1, T_ACK)
    out = FrameDecoder().feed(bytes(wire) + encode_frame(follower))
    frames_read = [o for o in out if isinstance(o, Frame)]
    assert frames_read[-1] == follower
    # up to three flipped bits are always caught by CRC-16/CCITT at these lengths (Hamming
    # distance 4), so anything read before the follower is the original (the flips cancelled out)
    assert all(survivor == frame for survivor in frames_read[:-1])


@settings(max_examples=100, deadline=None, derandomize=True)
@given(data=st.binary(max_size=300))
def test_protocol_feed_never_raises(data: bytes) -> None:
    out = DaShoeProtocol().feed(data)
    assert all(hasattr(o, "reason") or hasattr(o, "link_seq") for o in out)


def test_version_2_greeting_answer_and_refusal_bytes() -> None:
    protocol = DaShoeProtocol()
    assert protocol.greeting() == bytes.fromhex("7e 00 01 02 df ef 7f")
    assert protocol.acknowledge(Hello(2, 0xB007, "X")) == bytes.fromhex("7e 00 06 02 46 78 7f")
    refused = Malformed("unknown message type 0x13", 5, "unknown-type", 0x13)
    assert protocol.reject(refused) == bytes.fromhex("7e 05 16 01 13 d8 25 7f")


def test_a_version_1_shoe_gets_an_ack_for_a_refused_frame_and_an_unknown_version_a_refusal() -> None:
    protocol = DaShoeProtocol()
    protocol.acknowledge(Hello(1, 0xB007, "OLD"))
    assert protocol.reject(Malformed("x", 5, "unknown-type", 0x13)) == encode_frame(Frame(5, T_ACK))
    answer = protocol.acknowledge(Hello(9, 0xB007, "NEW"))
    assert answer == encode_frame(Frame(0, T_REFUSE, refuse_payload("unsupported-version", T_HELLO)))


def test_version_2_frames_carry_the_boot_id_and_other_sizes_are_refused() -> None:
    card = decode_message(Frame(4, T_CARD, card_payload_v2(7, Card.parse("AS"), T0, 0xCAFE)))
    assert card == CardDrawn(7, Card.parse("AS"), T0, link_seq=4, boot_id=0xCAFE)
    beat = decode_message(Frame(0, T_HEARTBEAT, heartbeat_payload(7, 0xCAFE)))
    assert beat == Heartbeat(7, boot_id=0xCAFE)
    assert decode_message(Frame(0, T_HEARTBEAT, heartbeat_payload(7))) == Heartbeat(7)
    odd = decode_message(Frame(4, T_CARD, card_payload(7, Card.parse("AS"), T0) + b"\x00"))
    assert isinstance(odd, Malformed) and odd.refusal == "bad-payload" and odd.frame_type == T_CARD
    status = decode_message(Frame(4, T_STATUS, bytes((9,)) + T0.to_bytes(8, "big")))
    assert isinstance(status, Malformed) and status.refusal == "unknown-status"
    assert decode_message(Frame(4, 0x13, b"")) == Malformed(
        "unknown message type 0x13", 4, "unknown-type", 0x13
    )
