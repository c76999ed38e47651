"""Parsers of the files a campaign is built from (pure Python, no Django).

Topic XML and the topics' formula TSVs (topics.py), the Stack Exchange dump (stackexchange.py),
the ARQMath formula index and SLT TSVs (formula_index.py), visual-id canonicalization
(visual_ids.py). Every problem raises ImportFileError naming file, line and problem.
"""
