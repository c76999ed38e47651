"""Evaluation: pure code (no Django, no database): qrels policies, measures, run files, reports."""
