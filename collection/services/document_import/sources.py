"""Where documents come from: a file (TREC, JSONL or TSV, maybe gzip) or an ir_datasets
dataset present locally. Each source can be read more than once (a second read finds the lines
of a repeated docno) and tells how far the current read has come, for a progress bar."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from collection.core.formats.documents import (
    FORMATS,
    DocumentFile,
    DocumentProblems,
    DocumentRecord,
    detect_format,
    read_documents,
)
from collection.core.formats.documents.ir_datasets_docs import (
    dataset_count,
    dataset_records,
    files_only,
    load_dataset,
)


class FileSource:
    """A collection file; ``file_format`` "auto" is decided from the file's first bytes."""

    unit = "B"

    def __init__(self, path: str | Path, file_format: str) -> None:
        if file_format != "auto" and file_format not in FORMATS:
            raise ValueError(f"unknown format {file_format!r}: auto, {', '.join(FORMATS)}")
        self.path = os.path.abspath(path)
        self.label = self.path
        self.file_format = detect_format(path) if file_format == "auto" else file_format
        self.size = os.path.getsize(path)
        self.total: int | None = self.size
        self._handle: DocumentFile | None = None
        self._read = 0  # bytes read by the last read, once it ended

    @property
    def position(self) -> int:
        return self._handle.bytes_read if self._handle is not None else self._read

    def problems(self) -> DocumentProblems:
        return DocumentProblems(self.path)

    def records(self, problems: DocumentProblems) -> Iterator[DocumentRecord]:
        with DocumentFile(self.path) as handle:
            self._handle = handle
            try:
                yield from read_documents(handle, self.file_format, problems)
            finally:
                self._read = handle.bytes_read
                self._handle = None


class DatasetSource:
    """An ir_datasets dataset, read with every download refused (files_only)."""

    unit = "docs"
    file_format = "ir_datasets"
    size = 0
    path = None

    def __init__(self, dataset_id: str) -> None:
        self.dataset_id = dataset_id
        self.label = f"ir_datasets:{dataset_id}"
        self._dataset: Any = load_dataset(dataset_id)
        with files_only(dataset_id):
            self.total = dataset_count(self._dataset)
        self.position = 0

    def problems(self) -> DocumentProblems:
        return DocumentProblems(self.label, where="document")

    def records(self, problems: DocumentProblems) -> Iterator[DocumentRecord]:
        with files_only(self.dataset_id):
            for record in dataset_records(self._dataset, problems):
                self.position = record.line
                yield record


Source = FileSource | DatasetSource
