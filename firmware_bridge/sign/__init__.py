"""The progressive jackpot sign: Alpha protocol encoding and the ``JackpotSign`` driver."""

from firmware_bridge.sign.driver import JackpotSign, SignError

__all__ = ["JackpotSign", "SignError"]
