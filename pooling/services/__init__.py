"""Writes of the pooling app: run submission, pool building."""
