"""Game protection: hole-card, counting and dealer signatures found in the verified record.

``records`` reads rounds from the event log; everything else works on those rounds and knows no
SQL, Flask or device: ``decisions`` and the per-game reviewers price each decision exactly,
``counting`` follows the shoe, ``dealers`` compares incident rates, ``report`` raises the flags.
See ``docs/protection.md``.
"""
