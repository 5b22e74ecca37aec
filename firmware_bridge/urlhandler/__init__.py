"""pyserial protocol handlers of this project (``serial.protocol_handler_packages``): ``emu://``."""
