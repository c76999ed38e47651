"""The one error every import parser raises: which file, which line, what is wrong."""

from pathlib import Path


class ImportFileError(Exception):
    """A problem in an input file; ``str()`` reads like ``Posts.xml line 12: no Id``."""

    def __init__(self, path: str | Path, line: int | None, message: str) -> None:
        self.path = str(path)
        self.line = line
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        name = Path(self.path).name or self.path
        where = f"{name} line {self.line}" if self.line is not None else name
        return f"{where}: {self.message}"
