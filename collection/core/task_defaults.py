"""The settings a new task starts with, by its kind.

Answer and formula tasks start with ARQMath-3's rules (ARQMath-3 §4: 45/20 posts and 25/15
visually distinct formulae with N = 5 instances; High + Medium relevant; qrels drop topics with
fewer than two relevant items). An open-QA task (ARQMath-3's Task 3) is judged in its answer
task's topics and averaged over all of them, so no topic is dropped for having few relevant
answers (ARQMath-3 reported AR and P@1 over the 78 topics assessed for Task 1). A document task
starts TREC-style: every topic kept, relevance from grade 1 (the 0-2 scale's Relevant), primary
runs pooled to depth 100 as TREC ad hoc pooled its judged runs, alternates not pooled unless
the organizer gives a run its own depth. A RAG task (TREC RAG 2024) judges each run's one
generated answer per topic by nuggets: every topic is kept and every answer is judged.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from kernel.core.grades import ARQMATH_RELEVANCE_LEVEL


@dataclass(frozen=True, slots=True)
class TaskDefaults:
    """A task's starting protocol settings (each one a field of the task, changeable later)."""

    primary_depth: int = 45
    alternate_depth: int = 20
    primary_k: int = 25
    alternate_k: int = 15
    max_instances: int = 5
    relevance_level: int = ARQMATH_RELEVANCE_LEVEL
    min_relevant: int = 2

    def as_fields(self) -> dict[str, int]:
        return asdict(self)


ARQMATH = TaskDefaults()
KIND_DEFAULTS: dict[str, TaskDefaults] = {
    "answer": ARQMATH,
    "formula": ARQMATH,
    "openqa": TaskDefaults(min_relevant=0),
    "document": TaskDefaults(
        primary_depth=100, alternate_depth=0, relevance_level=1, min_relevant=0
    ),
    "rag": TaskDefaults(primary_depth=1, alternate_depth=1, relevance_level=1, min_relevant=0),
}


def task_defaults(kind: str) -> TaskDefaults:
    """The defaults of ``kind``; KeyError for a kind qrelsmith does not know."""
    return KIND_DEFAULTS[kind]


def defaults_summary(kind: str) -> str:
    """The defaults of ``kind`` in the organizer's words (shown when a task is created)."""
    found = task_defaults(kind)
    relevant = f"grade ≥ {found.relevance_level} is relevant"
    kept = (
        f"qrels drop topics with fewer than {found.min_relevant} relevant items"
        if found.min_relevant
        else "qrels keep every judged topic"
    )
    if kind == "formula":
        pooled = (
            f"{found.primary_k}/{found.alternate_k} visually distinct formulae per primary/"
            f"alternate run, {found.max_instances} instances each"
        )
    elif kind == "openqa":
        pooled = "answers join the answer task's pools"
    elif kind == "rag":
        return "every run's answer to every topic is judged by the topic's nuggets"
    elif found.alternate_depth:
        pooled = f"{found.primary_depth}/{found.alternate_depth} per primary/alternate run"
    else:
        pooled = f"primary runs to depth {found.primary_depth}, alternates not pooled"
    return f"pools: {pooled}; {relevant}; {kept}"
