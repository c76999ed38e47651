"""What a new task of each kind starts with: pure, no Django.

The model's field defaults are ARQMath's (answer and formula tasks: topics with fewer than two
H+M items are dropped, H+M is relevant, primary runs pooled to 45 and alternate runs to 20).
Other kinds differ where the lab's practice does: open QA (ARQMath's Task 3) reported its
measures over every topic, so no topic is dropped; TREC keeps every topic, counts every grade
from 1 as relevant and pools each run to the same, deeper depth (TREC ad hoc's 100).
"""

from __future__ import annotations

ARQMATH = {"min_relevant": 2, "relevance_level": 2, "primary_depth": 45, "alternate_depth": 20}
KIND_DEFAULTS: dict[str, dict[str, int]] = {
    "answer": ARQMATH,
    "formula": ARQMATH,
    "openqa": {**ARQMATH, "min_relevant": 0},
    "document": {
        "min_relevant": 0,
        "relevance_level": 1,
        "primary_depth": 100,
        "alternate_depth": 100,
    },
}


def task_defaults(kind: str) -> dict[str, int]:
    """The settings a new task of ``kind`` is created with."""
    return dict(KIND_DEFAULTS.get(kind, ARQMATH))


def settings_text(min_relevant: int, relevance_level: int, primary: int, alternate: int) -> str:
    """A task's protocol settings in words, as the import command reports them."""
    rule = (
        f"topics with fewer than {min_relevant} relevant items dropped"
        if min_relevant
        else ("no minimum-relevant rule (every topic kept)")
    )
    return (
        f"{rule}; relevant from grade {relevance_level}; "
        f"pool depths {primary} (primary runs) / {alternate} (alternate runs)"
    )
