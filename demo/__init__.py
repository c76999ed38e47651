"""Synthetic demo campaigns (``manage.py demo``): generated files, then every step through the
services any other caller uses. Nothing in the other apps imports this one.

``demo.synthetic`` writes the files (pure Python, no Django): an ARQMath-like collection with
topics and runs, and a TREC-style news campaign (``demo.synthetic.trec``).
"""
