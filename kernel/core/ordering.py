"""The one order of topic numbers and item ids on every page and in every file we write.

Numbers inside a string compare as numbers, so "A.2" comes before "A.10", topic "99" before
"100" and post 99 before post 100; TREC topic numbers and docnos are strings and sort the same
way. Only ``\\d`` digits count (Unicode decimal digits, which ``int`` reads): a superscript
"²" is text, never a number to convert.
"""

from __future__ import annotations

import re

_NUMBERS = re.compile(r"(\d+)")


def natural_key(value: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key: runs of digits by value, the rest as text."""
    return tuple(
        (0, int(part)) if part.isdecimal() else (1, part) for part in _NUMBERS.split(value) if part
    )
