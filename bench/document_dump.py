"""Synthetic JSONL document collections, for the document import benchmark and tests.

``write_documents(path, count, newer=0.0)`` streams ``count`` documents of about 1 KB each
(``{"id", "title", "text", "date"}``); every document is a function of its number, so the same
arguments give byte-identical files. ``newer=0.02`` writes the next version: documents whose
number is 0 mod 100 have a changed text, ``count * newer / 2`` new documents follow the last,
and nothing is removed. ``Expected`` says what importing the newer file over the first adds,
updates and leaves unchanged. ``gzip=True`` compresses the file.
"""

from __future__ import annotations

import gzip as gzip_module
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import IO

SENTENCES = 512
# A document's text: this many sentences of the pool (each ~120 characters).
SENTENCES_PER_DOC = 8


@dataclass(frozen=True)
class Expected:
    rows: int
    added: int
    updated: int
    unchanged: int


def _sentences(seed: int = 13) -> list[str]:
    rng = random.Random(seed)
    vocabulary = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
        for _ in range(2_000)
    ]
    out = []
    for _ in range(SENTENCES):
        words = [rng.choice(vocabulary) for _ in range(rng.randint(16, 24))]
        out.append(" ".join(words).capitalize() + ".")
    return out


def document(number: int, sentences: list[str], *, changed: bool = False) -> dict[str, str]:
    """Document ``number``'s fields (``changed``: its newer version)."""
    picks = [sentences[(number * 7919 + i * 104_729) % SENTENCES] for i in range(SENTENCES_PER_DOC)]
    if changed:
        picks[0] = "Revised: " + picks[0]
    paragraphs = [" ".join(picks[:4]), " ".join(picks[4:])]
    return {
        "id": f"doc-{number:08d}",
        "title": f"Report {number}: " + picks[-1][:40],
        "text": "\n\n".join(paragraphs),
        "date": f"2026-{number % 12 + 1:02d}-{number % 28 + 1:02d}",
    }


def _write(out: IO[str], count: int, newer: float) -> Expected:
    sentences = _sentences()
    updated = 0
    for number in range(count):
        changed = newer > 0 and number % 100 == 0
        updated += changed
        out.write(json.dumps(document(number, sentences, changed=changed)) + "\n")
    added = int(count * newer / 2)
    for number in range(count, count + added):
        out.write(json.dumps(document(number, sentences)) + "\n")
    return Expected(count + added, added, updated, count - updated)


def write_documents(path: Path, count: int, *, newer: float = 0.0, gzip: bool = False) -> Expected:
    """Write the collection (or its newer version) to ``path``; what importing it over the
    first version changes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if gzip:
        with gzip_module.open(path, "wt", encoding="utf-8", compresslevel=1) as out:
            return _write(out, count, newer)
    with path.open("w", encoding="utf-8", buffering=1 << 20) as out:
        return _write(out, count, newer)
