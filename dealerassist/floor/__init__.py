"""The floor store: every station's records, shipped as they commit, in one PostgreSQL database.

Append-only for the stations, checked on ingest (each stream's sequence, chain and MACs), and
searchable across tables for surveillance. ``schema`` sets it up, ``shipper`` sends a station's
log, ``store`` reads it back, ``audit`` compares a local log with its floor copy.
"""
