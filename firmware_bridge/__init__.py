"""Serial devices at the table: the card-shoe reader and the progressive jackpot sign.

``ports`` opens devices by pyserial URL (and registers the ``emu://`` scheme), ``shoe`` and
``sign`` hold the protocols and drivers, ``emulators`` the stand-ins; docs/protocols/ describes
the wire formats byte by byte.
"""
