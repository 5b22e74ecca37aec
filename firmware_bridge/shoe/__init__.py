"""The card-shoe reader: our framed serial protocol and the driver that turns it into events."""

from firmware_bridge.shoe.driver import ShoeReader

__all__ = ["ShoeReader"]
