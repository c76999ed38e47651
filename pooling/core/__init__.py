"""Pooling: pure code (no Django, no database): run file formats and pooling algorithms."""
