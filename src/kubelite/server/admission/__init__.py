"""Admission for the embedded API server: defaulting, validation, generation.

Pure functions on plain dicts; nothing here does I/O or keeps state.
"""
