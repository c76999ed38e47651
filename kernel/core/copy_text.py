"""PostgreSQL's COPY text format (one line per row, tab-separated, ``\\N`` for NULL).

Pure string work, shared by the bulk loader and the parsers that write COPY lines straight
from a file's cells (the formula index: 28 million rows, where every Python call counts).
"""

NULL = "\\N"


def escape(value: str) -> str:
    """A text value in COPY's text format (backslash, tab, newline, CR escaped).

    ``in`` tests and ``replace`` run in C; ``str.translate`` with a dict is ~10x slower, and
    this is paid for every text cell of the formula index.
    """
    if "\\" in value:
        value = value.replace("\\", "\\\\")
    if "\t" in value or "\n" in value or "\r" in value:
        value = value.replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
    return value
