"""The progressive jackpot sign: Alpha protocol encoding and the ``JackpotSign`` driver."""

from firmware_bridge.sign.driver import JackpotSign, SignError, SignLine

__all__ = ["JackpotSign", "SignError", "SignLine"]
