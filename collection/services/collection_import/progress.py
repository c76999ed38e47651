"""What a collection import tells its caller: progress while a file loads, and what each file
changed (rows added, updated and unchanged per table)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from collection.core.formats.stackexchange import RowProgress

T = TypeVar("T")


@dataclass(frozen=True)
class ImportProgress:
    """Where an import is: the file, rows read, bytes of it consumed (for a progress bar)."""

    stage: str  # posts | comments | formulas | slt
    path: str
    rows: int
    bytes_read: int
    bytes_total: int


ProgressCallback = Callable[[ImportProgress], None]


@dataclass(frozen=True)
class RowChanges:
    """One table's rows in one file: how many the file holds, and what loading them did.

    ``rows`` counts the file's rows (for SLT: those that carry MathML); ``added``,
    ``updated`` and ``unchanged`` split every row the file gives.
    """

    rows: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated)

    def as_dict(self) -> dict[str, int]:
        return {
            "rows": self.rows,
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
        }

    @classmethod
    def from_dict(cls, values: Mapping[str, int]) -> RowChanges:
        return cls(**{k: int(values.get(k, 0)) for k in ("rows", "added", "updated", "unchanged")})


# Table name ("threads", "posts", "comments", "formulas", "slt") -> its changes.
FileChanges = dict[str, RowChanges]


@dataclass(frozen=True)
class FileOutcome:
    """One file of an import: loaded (with its changes) or skipped as already imported."""

    role: str  # posts | comments | formulas | slt
    path: str
    skipped: bool
    changes: FileChanges
    skipped_because: str = ""  # e.g. "identical to the import of 2022-05-01 10:00 UTC"


@dataclass(frozen=True)
class CollectionImportReport:
    """Rows the imported files hold (threads, posts, …; ``slt``: formulas given MathML),
    whether loaded now or skipped as already imported; ``files`` says what each file did."""

    threads: int = 0
    posts: int = 0
    comments: int = 0
    formulas: int = 0
    slt: int = 0
    files: tuple[FileOutcome, ...] = field(default=(), compare=False)


class Reporter:
    """Calls the progress callback at most every ``every`` rows."""

    def __init__(self, stage: str, path: str | Path, callback: ProgressCallback | None) -> None:
        self.stage, self.path, self.callback = stage, str(path), callback
        self.state = RowProgress()
        self.total = os.path.getsize(path) if os.path.exists(path) else 0
        self._last = 0

    def tick(self, every: int = 20_000) -> None:
        if self.callback is not None and self.state.rows - self._last >= every:
            self._last = self.state.rows
            self.report()

    def report(self) -> None:
        if self.callback is not None:
            read = min(self.state.bytes_read, self.total)
            self.callback(ImportProgress(self.stage, self.path, self.state.rows, read, self.total))

    def watch(self, items: Iterable[T]) -> Iterator[T]:
        for item in items:
            yield item
            self.tick()
