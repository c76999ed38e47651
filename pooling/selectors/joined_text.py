"""An aggregate both databases have: the grouped rows' values as one comma-separated text.

The pool exports and figures read a row per item or per (run, topic) with its contributions
joined in one text, instead of a row per contribution: at full size that is ten times fewer
rows to fetch and turn into Python objects. PostgreSQL calls it STRING_AGG, the
demo's SQLite GROUP_CONCAT. The order inside the text is not set: callers order in Python.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Aggregate, TextField


class JoinedText(Aggregate):
    """``a,b,a,b...``: per grouped row, its expressions' values joined by ``,``, all rows'
    joined by ``,``."""

    function = "STRING_AGG"
    template = "%(function)s(CAST(%(expressions)s AS TEXT), ',')"
    arg_joiner = " || ',' || "
    output_field = TextField()

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        return self.as_sql(compiler, connection, function="GROUP_CONCAT", **extra)
