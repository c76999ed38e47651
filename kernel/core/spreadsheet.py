"""Cells of CSV and TSV exports made safe to open in a spreadsheet (formula injection).

OWASP's "CSV Injection" advice: a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return may be run as a formula by Excel, LibreOffice or Google Sheets, so such a cell
is prefixed with a single quote, which makes the spreadsheet show it as text.

Every export writes its cells through ``safe_cell`` (one rule for all of them). Numbers stay
numbers: an ``int`` or ``float`` is never touched, and neither is a string that is exactly a
plain decimal number (``-0.5``, ``+3``, ``1e-3``), which a spreadsheet reads as that number and
never as a formula; our own formatted scores (``f"{kappa:.4f}"``) are such strings. Anything
else that starts with one of those characters — a run description ``-cmd|' /C calc'!A0``, a
comment ``=HYPERLINK(...)``, a tag ``@SUM(...)`` — is neutralized, whoever wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
PLAIN_NUMBER = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


def safe_cell(value: Any) -> Any:
    """``value`` as it may be written to a CSV/TSV cell: strings that a spreadsheet would
    read as a formula get a leading ``'``; numbers, dates and ``None`` are returned as they
    are (the writer formats them)."""
    if not isinstance(value, str) or not value.startswith(TRIGGERS):
        return value
    if PLAIN_NUMBER.fullmatch(value):
        return value
    return "'" + value


def safe_row(values: Iterable[Any]) -> list[Any]:
    """Every cell of a row through ``safe_cell``."""
    return [safe_cell(value) for value in values]
