"""Which measures a task's results are scored with (``RetrievalTask.official_measures``): pure.

A task names its official measures as ``evaluate --measure`` takes them (trec_eval's or
ir_measures' names, ``evaluation.core.trec_names``). None named: the defaults of the task's kind.
The ARQMath kinds keep exactly the measures they were published with: nDCG', MAP', P'@10 (answer
and formula tasks, ``evaluation.core.measures.PrimeEvaluator``) and AR, P@1 (open QA). A document
task defaults to trec_eval's usual ad hoc measures. Binary measures count a grade as relevant from
the task's relevance level unless a name says otherwise (``AP(rel=1)``).
"""

from __future__ import annotations

from collections.abc import Sequence

from evaluation.core.trec_names import MeasureNameError, measure_names_check, parse_measures

KIND_DEFAULTS: dict[str, tuple[str, ...]] = {
    "document": ("map", "P_10", "ndcg_cut_10", "bpref"),
}
MAX_MEASURES = 40
MAX_NAME = 100
ARQMATH_DEFAULTS = {
    "answer": "nDCG', MAP', P'@10 (ARQMath's prime measures)",
    "formula": "nDCG', MAP', P'@10 (ARQMath's prime measures)",
    "openqa": "AR and P@1 (ARQMath Task 3)",
}


def official_measure_names(kind: str, names: Sequence[str]) -> list[str] | None:
    """The measure names a task is scored with; None: its kind's ARQMath measures."""
    if names:
        return list(names)
    defaults = KIND_DEFAULTS.get(kind)
    return list(defaults) if defaults is not None else None


def default_text(kind: str) -> str:
    """The kind's defaults in words, for forms and the API."""
    defaults = KIND_DEFAULTS.get(kind)
    return ", ".join(defaults) if defaults is not None else ARQMATH_DEFAULTS.get(kind, "")


def names_from_text(text: str) -> list[str]:
    """One name a line (names may hold commas and spaces: ``P.5,10``, ``AP(rel=2, …)``)."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def official_measures_check(kind: str, names: Sequence[str]) -> list[str]:
    """The names cleaned (blanks and repeats dropped, order kept) and checked: an unknown name
    raises MeasureNameError naming it. Open QA is scored by its answer, not a ranking."""
    if len(names) > MAX_MEASURES:
        raise MeasureNameError(f"at most {MAX_MEASURES} official measures, not {len(names)}")
    for name in names:
        if len(name) > MAX_NAME:
            raise MeasureNameError(f"a measure name is at most {MAX_NAME} characters: {name[:40]}…")
    cleaned = measure_names_check(names)
    if cleaned and kind == "openqa":
        raise MeasureNameError(
            "open QA tasks are scored with AR and P@1 of each topic's answer; "
            "ranked measures do not apply (leave the official measures empty)"
        )
    return cleaned


LEFT_OUT = "unjudged results are left out before scoring"
NOT_RELEVANT = "unjudged results count as not relevant (as in trec_eval)"


def unjudged_rule(kind: str, names: Sequence[str]) -> str:
    """How a task's measures score an unjudged item, in words (for pages warning about
    incomplete qrels): what the task's scorer does, not one rule for every kind."""
    if kind == "openqa":
        return "a topic whose answer is unjudged scores 0"
    measures = official_measure_names(kind, names)
    if measures is None:  # ARQMath's prime measures: trec_eval -J
        return LEFT_OUT
    ranked = [m for m in parse_measures(measures) if m.judged_at is None]
    judged_only = [m.name for m in ranked if m.judged_only]
    if not judged_only:
        return NOT_RELEVANT
    if len(judged_only) == len(ranked):
        return LEFT_OUT
    return (
        f"{', '.join(judged_only)} leave unjudged results out; "
        "the other measures count them as not relevant"
    )
