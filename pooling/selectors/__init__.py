"""Reads of the pooling app."""
