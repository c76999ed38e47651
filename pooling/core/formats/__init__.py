"""Run file parsing and validation: pure Python, no Django.

Public API: ``read_run(stream, name=, context=, max_bytes=)`` and ``read_run_path(path)``
return a ``ParsedRun`` (``RunReading`` does it in two steps, to store rows while a file
streams); ``RunContext`` carries what the database knows for collection checks.
"""

from pooling.core.formats.detect import detect_format
from pooling.core.formats.model import (
    DEFAULT_MAX_BYTES,
    MAX_LISTED,
    ParsedRun,
    Problem,
    RunContext,
    RunFormat,
    RunRecord,
)
from pooling.core.formats.reader import RunReading, read_run, read_run_path

__all__ = [
    "DEFAULT_MAX_BYTES",
    "MAX_LISTED",
    "ParsedRun",
    "Problem",
    "RunContext",
    "RunFormat",
    "RunReading",
    "RunRecord",
    "detect_format",
    "read_run",
    "read_run_path",
]
