"""Progress told in the task's own units: a formula task's items are visually distinct
formulae, each judged in up to N posts; an answer task's items are answers, one hit each."""

from __future__ import annotations

from dataclasses import dataclass

from collection.models import RetrievalTask


@dataclass(frozen=True)
class Units:
    """What a task's pool items and hits are called, singular and plural."""

    item: str
    items: str
    hit: str
    hits: str

    @property
    def item_is_hit(self) -> bool:
        """One hit per item (answers): counting both would say the same thing twice."""
        return self.item == self.hit


ANSWER_UNITS = Units("answer", "answers", "answer", "answers")
UNITS = {
    RetrievalTask.Kind.ANSWER: ANSWER_UNITS,
    RetrievalTask.Kind.OPENQA: ANSWER_UNITS,
    RetrievalTask.Kind.FORMULA: Units("formula", "formulae", "post", "posts"),
    RetrievalTask.Kind.DOCUMENT: Units("document", "documents", "document", "documents"),
}


def units_of(kind: str) -> Units:
    """The units of a task kind; an unknown kind counts neutral items and hits."""
    return UNITS.get(kind, Units("item", "items", "hit", "hits"))  # type: ignore[call-overload]


@dataclass(frozen=True)
class Progress:
    """How much of a topic (or a task) is judged, in its units."""

    kind: str
    judged_items: int
    items: int
    judged_hits: int
    hits: int

    @property
    def units(self) -> Units:
        return units_of(self.kind)

    @property
    def percent(self) -> int:
        return round(100 * self.judged_hits / self.hits) if self.hits else 0

    @property
    def counts_items(self) -> bool:
        """Whether items and hits differ (formulae in posts) and both are told."""
        return not self.units.item_is_hit

    @property
    def items_word(self) -> str:
        return self.units.item if self.items == 1 else self.units.items

    @property
    def hits_word(self) -> str:
        return self.units.hit if self.hits == 1 else self.units.hits

    def __str__(self) -> str:
        """Like "12 of 44 formulae · 30 of 100 posts", or "30 of 100 answers"."""
        hits = f"{self.judged_hits} of {self.hits} {self.hits_word}"
        if not self.counts_items:
            return hits
        return f"{self.judged_items} of {self.items} {self.items_word} · {hits}"
