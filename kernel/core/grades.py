"""The grade scale every task shares: which grades may be stored and what ARQMath calls relevant.

A task's scale is 0..G with G between 1 and ``MAX_GRADE`` (its guidelines say which); the
database holds the bound for every judgment. Qrels files written for ARQMath's Task 3 carry two
flags as codes above the scale. Binary measures, binary kappa and the minimum-relevant rule count
grade >= a task's relevance level as relevant; ARQMath's is High + Medium (ARQMath-1 §4.2: 'H+M
binarization'), which every ARQMath task keeps and a TREC task may lower to 1.
"""

from __future__ import annotations

MAX_GRADE = 4  # the top grade any task's scale may have
ARQMATH_RELEVANCE_LEVEL = 2  # High + Medium (grades 2 and 3 of ARQMath's 0-3 scale)

GRADE_SYSTEM_FAILURE = 5  # Task 3 file code for the "system failure" flag
GRADE_DONT_KNOW = 6  # Task 3 file code for the "do not know" flag
