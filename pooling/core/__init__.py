"""Pooling's pure code: no Django, no database."""
