"""Stand-ins for the shoe and the jackpot sign that talk the real protocols over a pty or TCP.

The real drivers run unchanged against them; tests, the demo and a developer at a desk without
hardware use them. ``registry`` backs the in-process ``emu://`` URL scheme.
"""
