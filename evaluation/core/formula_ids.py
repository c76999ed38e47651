"""ARQMath formula index files read for evaluation: formula id -> visual id. Pure, no Django."""

from __future__ import annotations

import gzip
from collections.abc import Collection, Iterator
from pathlib import Path


def read_formula_index(path: str | Path, wanted: Collection[str] | None = None) -> dict[str, str]:
    """formula id -> visual id from an ARQMath formula index TSV, streamed.

    v3 files have 9 columns (``id post_id thread_id type comment_id old_visual_id visual_id
    issue formula``); the older 5-column form has no visual id, so the LaTeX with white space
    removed stands in for it (docs/runs.md). Only ``wanted`` ids are kept.
    """
    visual_ids: dict[str, str] = {}
    for fields in _index_lines(Path(path)):
        if not fields[0].isdigit() or (wanted is not None and fields[0] not in wanted):
            continue  # header, or a formula no run retrieved
        if len(fields) >= 9:
            visual_ids[fields[0]] = fields[6]
        elif len(fields) == 5:
            visual_ids[fields[0]] = "".join(fields[4].split())
    return visual_ids


def _index_lines(path: Path) -> Iterator[list[str]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8-sig", newline="") as stream:  # type: ignore[operator]
        for line in stream:
            yield line.rstrip("\r\n").split("\t")
