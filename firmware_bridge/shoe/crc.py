"""CRC-16/CCITT-FALSE (a.k.a. CRC-16/IBM-3740): poly 0x1021, init 0xFFFF, no reflection, no xorout.

Chosen because nearly every microcontroller SDK ships it; its check value (CRC of ASCII
``123456789``) is 0x29B1, which the tests assert. The standard library's ``binascii.crc_hqx`` is
this CRC (CRC-CCITT, MSB first) computed in C; it only needs the 0xFFFF start value.
"""

from __future__ import annotations

import binascii
from typing import Final

CHECK_VALUE: Final = 0x29B1


def crc16_ccitt_false(data: bytes, crc: int = 0xFFFF) -> int:
    return binascii.crc_hqx(data, crc)
