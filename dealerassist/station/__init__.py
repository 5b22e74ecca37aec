"""Assembling one process's tables from their config files (``dealerassist run`` and the demo).

``tables.load_tables`` checks every file before anything starts; ``station.Station`` wires the
event log, the pit, progressive controllers, shoe and sign drivers and cameras together;
``dashboard.build_dashboard`` puts the web dashboard and ``/healthz`` over a started station.
"""
