"""Table progressive jackpots: exact meters, a controller fed by the tracker, a shared linked meter.

``meter`` is the pure arithmetic, ``params`` reads a table's ``[progressive]`` section, ``events``
are what the progressive logs, ``plans`` are its rules (pure: meter in, events out), ``store`` and
``linked`` keep the meter (the table's own event log, or a PostgreSQL row shared by linked tables)
and ``controller`` ties them to the tracker; ``sign`` feeds the jackpot sign and ``report``
reconciles. See ``docs/progressive.md``.
"""
