"""A topic's pool as the items a build should hold: the rules of answer.py, formula.py and
openqa.py applied with each run's depth from settings.py (docs/pooling.md); document
tasks pool docnos by the answer rules."""

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pooling.core.algorithms.answer import AnswerRow, DocumentRow, answer_pool
from pooling.core.algorithms.formula import Candidate, FormulaRow, formula_pool
from pooling.core.algorithms.openqa import openqa_pool
from pooling.core.algorithms.settings import PoolSettings, RunSpec, answer_depth, formula_k


@dataclass(slots=True)
class PlannedItem:
    """One pool item a topic should have, with every (run, rank) that put it there."""

    key: str
    contributions: dict[int, int]  # run id -> rank
    post_id: int | None = None
    document_id: int | None = None  # document items: set by the build from the docno (key)
    visual_id: str = ""
    answer: str = ""
    candidates: dict[int, Candidate] = field(default_factory=dict)  # formula id -> instance

    @property
    def vote(self) -> float:
        """Sum over contributing runs of 1/rank (correctly rounded, so order-independent)."""
        return math.fsum(1 / rank for rank in self.contributions.values())


def plan_answer_topic(
    runs: Iterable[tuple[RunSpec, Sequence[AnswerRow]]],
    answers: Iterable[tuple[int, int, str]],
    settings: PoolSettings,
) -> dict[str, PlannedItem]:
    """Answer items (key: the post id) and open-QA answers (key: a digest of the text)."""
    pool = answer_pool((spec.run_id, rows, answer_depth(spec, settings)) for spec, rows in runs)
    plan = {
        str(post_id): PlannedItem(str(post_id), contributions, post_id=post_id)
        for post_id, contributions in pool.items()
    }
    for key, generated in openqa_pool(answers).items():
        plan[key] = PlannedItem(key, generated.ranks, answer=generated.text)
    return plan


def plan_document_topic(
    runs: Iterable[tuple[RunSpec, Sequence[DocumentRow]]], settings: PoolSettings
) -> dict[str, PlannedItem]:
    """Document items (key: the docno), pooled exactly as answer items are."""
    pool = answer_pool((spec.run_id, rows, answer_depth(spec, settings)) for spec, rows in runs)
    return {docno: PlannedItem(docno, contributions) for docno, contributions in pool.items()}


def plan_formula_topic(
    runs: Iterable[tuple[RunSpec, Sequence[FormulaRow]]], settings: PoolSettings
) -> tuple[dict[str, PlannedItem], dict[int, int]]:
    """Formula items (key: the visual id) with their candidate instances, and each run's depth."""
    pool = formula_pool((spec.run_id, rows, formula_k(spec, settings)) for spec, rows in runs)
    plan = {
        visual_id: PlannedItem(
            visual_id, contributions, visual_id=visual_id, candidates=pool.candidates[visual_id]
        )
        for visual_id, contributions in pool.items.items()
    }
    return plan, pool.depths
