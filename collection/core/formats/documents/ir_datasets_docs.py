"""Documents of an ir_datasets dataset whose files are already on this machine.

``ir_datasets`` is imported lazily (it loads its whole catalogue). Its documents are named
tuples; each becomes a DocumentRecord: ``doc_id`` the docno, ``title``, the first of ``text``,
``body``, ``contents``, ``passage`` (or ``default_text()``) the body, HTML when the tuple says
so (``body_content_type``), ``url``, and the other plain fields as metadata.

ir_datasets downloads a missing file the moment it is opened; qrelsmith never does (an import
must not reach the network, and a server may have none). ``files_only`` makes every download
path of ir_datasets refuse for the duration, naming the missing file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from collection.core.formats.documents.record import (
    DocumentProblems,
    DocumentRecord,
    document_record,
)

BODY_FIELDS = ("text", "body", "contents", "passage")
# Tuple fields not kept: the SGML a TREC document was parsed from repeats it whole.
SKIPPED_FIELDS = frozenset({"doc_id", "title", "url", "marked_up_doc", "body_content_type"})


class DatasetNotLocal(Exception):
    """The dataset's files are not on this machine (ir_datasets would download them)."""


class DatasetUnknown(Exception):
    """No such dataset, or one without documents."""


def load_dataset(dataset_id: str) -> Any:
    """The ir_datasets dataset ``dataset_id``, which must provide documents."""
    import ir_datasets  # lazily: it imports its whole catalogue

    try:
        dataset = ir_datasets.load(dataset_id)
    except KeyError as error:
        raise DatasetUnknown(f"ir_datasets has no dataset {dataset_id!r}") from error
    if not dataset.has_docs():
        raise DatasetUnknown(f"ir_datasets dataset {dataset_id!r} has no documents")
    return dataset


def _refusal(dataset_id: str, what: str) -> DatasetNotLocal:
    return DatasetNotLocal(
        f"ir_datasets dataset {dataset_id}: {what} is not on this machine, and qrelsmith "
        "never downloads. Fetch it with ir_datasets (e.g. `ir_datasets export "
        f"{dataset_id} docs > /dev/null`) where the network and the data's licence allow, "
        "then import again (IR_DATASETS_HOME says where ir_datasets keeps its files)."
    )


@contextmanager
def files_only(dataset_id: str) -> Iterator[None]:
    """While open, any ir_datasets download raises DatasetNotLocal instead of fetching, and
    so does a local file that is missing.

    It patches ir_datasets' own download classes (Download, and every network mirror class),
    and puts them back on the way out.
    """
    from ir_datasets.util import download

    patched: list[tuple[type, str, Any]] = []

    def patch(cls: type, name: str, replacement: Any) -> None:
        patched.append((cls, name, cls.__dict__[name]))
        setattr(cls, name, replacement)

    original_path = download.Download.path
    original_stream = download.Download.stream

    def path(self: Any, force: bool = True) -> Any:
        cache = self._cache_path
        if force and self._path is None and (cache is None or not os.path.exists(cache)):
            raise _refusal(dataset_id, f"file {cache}" if cache else "a file")
        return original_path(self, force)

    def stream(self: Any) -> Any:
        if self._stream:
            raise _refusal(dataset_id, "a streamed file")
        return original_stream(self)

    def network(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise _refusal(dataset_id, f"a file at {getattr(self, 'url', self)!r}")

    try:
        patch(download.Download, "path", path)
        patch(download.Download, "stream", stream)
        for cls in vars(download).values():
            if (
                isinstance(cls, type)
                and issubclass(cls, download.BaseDownload)
                and cls not in (download.BaseDownload, download.LocalDownload)
                and "stream" in cls.__dict__
            ):
                patch(cls, "stream", network)
        yield
    except FileNotFoundError as error:  # a LocalDownload whose file is gone
        raise _refusal(dataset_id, f"file {error.filename or error}") from error
    finally:
        for cls, name, original in reversed(patched):
            setattr(cls, name, original)


def _plain(value: Any) -> Any:
    """A value kept in metadata as JSON, or None to leave it out (bytes, objects)."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, list | tuple):
        items = [_plain(item) for item in value]
        return (
            items
            if all(i is not None or v is None for i, v in zip(items, value, strict=True))
            else None
        )
    return None


def _text(value: Any) -> str | None:
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return value if isinstance(value, str) else None


def _body(doc: Any) -> tuple[str | None, str | None]:
    """(body, problem) of a document tuple."""
    for name in BODY_FIELDS:
        if hasattr(doc, name):
            text = _text(getattr(doc, name))
            return (text, None) if text is not None else (None, f"field {name} is not UTF-8 text")
    if hasattr(doc, "default_text"):
        return str(doc.default_text()), None
    return "", None


def dataset_records(dataset: Any, problems: DocumentProblems) -> Iterator[DocumentRecord]:
    """The dataset's documents in docs_iter() order (``line`` is the document's number)."""
    for number, doc in enumerate(dataset.docs_iter(), 1):
        docno = doc.doc_id if isinstance(doc.doc_id, str) else str(doc.doc_id)
        body, problem = _body(doc)
        if problem is not None or body is None:
            problems.add(number, f"docno {docno}: {problem}")
            continue
        content_type = str(getattr(doc, "body_content_type", "") or "")
        metadata = {
            name: kept
            for name in doc._fields
            if name not in SKIPPED_FIELDS
            and name not in BODY_FIELDS
            and (kept := _plain(getattr(doc, name))) is not None
        }
        record = document_record(
            docno=docno.strip(),
            title=(_text(getattr(doc, "title", "")) or "").strip(),
            body=body.strip(),
            body_format="html" if "html" in content_type.lower() else None,
            url=(_text(getattr(doc, "url", "")) or "").strip(),
            metadata=metadata,
            line=number,
            problems=problems,
        )
        if record is not None:
            yield record


def dataset_count(dataset: Any) -> int | None:
    """How many documents the dataset says it has, if it knows without reading them."""
    try:
        count = dataset.docs_count()
    except Exception:
        return None
    return count if isinstance(count, int) else None
