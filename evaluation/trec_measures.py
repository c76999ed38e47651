"""Any trec_eval measure, by trec_eval's or ir_measures' name, computed with pytrec_eval: pure.

Names: trec_eval's (``map``, ``P_10``, ``P.5,10``, ``ndcg_cut_10``, ``iprec_at_recall_0.10``,
``set_F``, …, checked against ``pytrec_eval.supported_measures``) and ir_measures' (``nDCG@10``,
``AP(rel=2)``, ``P(rel=2)@10``, ``RR``, ``R@100``, ``Judged@10``, …). ``rel=N`` is that measure's
relevance level (trec_eval ``-l``); pytrec_eval takes one level per evaluator, so each level
gets its own evaluator. ``Judged@k`` is not trec_eval's: we compute it (share of the top k, in
trec_eval's order, that is judged, before --judged-only drops anything).

Options follow trec_eval: ``average="all"`` is ``-c`` (every qrels topic, a missing one scoring
0), ``"run"`` the run's own qrels topics; ``depth`` is ``-M`` (each topic's first M docs in
trec_eval's order: score descending, doc id descending), applied after ``judged_only`` (ARQMath's
"prime": unjudged docs dropped first), as trec_eval's ``-J`` then ``-M`` do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import pytrec_eval

from evaluation.measures import Average, Grades, Scores, judged_fraction, prime, trec_order

JUDGED = "Judged"
# trec_eval families that take a cut-off or parameter (P_10, iprec_at_recall_0.10, ...).
PARAMETRIC = frozenset(
    {"P", "recall", "relative_P", "ndcg_cut", "map_cut", "Rprec_mult", "iprec_at_recall", "success"}
)
# ir_measures name -> (trec_eval family without cut-off, family with cut-off).
IR_MEASURES: dict[str, tuple[str | None, str | None]] = {
    "nDCG": ("ndcg", "ndcg_cut"),
    "AP": ("map", "map_cut"),
    "P": (None, "P"),
    "R": (None, "recall"),
    "RR": ("recip_rank", None),
    "Bpref": ("bpref", None),
    "Rprec": ("Rprec", None),
    "Success": (None, "success"),
    "IPrec": (None, "iprec_at_recall"),
    "NumRet": ("num_ret", None),
    "NumRel": ("num_rel", None),
    "NumRelRet": ("num_rel_ret", None),
    "infAP": ("infAP", None),
    "SetP": ("set_P", None),
    "SetR": ("set_recall", None),
    "SetF": ("set_F", None),
}
IR_SYNTAX = re.compile(r"^(?P<name>[A-Za-z]+)(?:\(rel=(?P<rel>\d+)\))?(?:@(?P<cut>[0-9.]+))?$")
EXAMPLES = "map, P_10, P.5,10, ndcg_cut_10, ndcg, recip_rank, bpref, nDCG@10, AP(rel=2), Judged@10"


class MeasureNameError(ValueError):
    """A measure name neither trec_eval nor ir_measures knows."""


@dataclass(frozen=True, slots=True)
class Measure:
    """One measure: the name asked for, trec_eval's name, and its own relevance level."""

    name: str
    trec: str  # pytrec_eval's key ("P_10"); for Judged@k, "Judged_k"
    relevance_level: int | None = None  # None: the evaluation's level
    judged_at: int | None = None  # Judged@k: k


def _bad(name: str, why: str) -> MeasureNameError:
    return MeasureNameError(f"unknown measure {name!r}: {why}; examples: {EXAMPLES}")


def _parameter(name: str, value: str, family: str = "") -> str:
    try:
        number = float(value)
    except ValueError:
        raise _bad(name, f"{value!r} is not a number") from None
    if number < 0:
        raise _bad(name, f"{value!r} is negative")
    if family == "iprec_at_recall":  # trec_eval's key has two decimals
        return f"{number:.2f}"
    if not value.isdigit():
        raise _bad(name, f"{value!r} is not a whole cut-off")
    return value


def _trec_names(name: str) -> list[str] | None:
    """trec_eval syntax -> pytrec_eval keys, or None if it is not trec_eval's syntax."""
    if name in PARAMETRIC:
        raise _bad(name, f"{name} needs a cut-off, as in {name}_10 or {name}.5,10")
    if name in pytrec_eval.supported_measures:
        return [name]
    family, dot, params = name.partition(".")
    if dot and family in pytrec_eval.supported_measures:
        if family not in PARAMETRIC:
            raise _bad(name, f"{family} takes no parameter")
        values = [p.strip() for p in params.split(",") if p.strip()]
        if not values:
            raise _bad(name, "no parameter after the dot")
        return [f"{family}_{_parameter(name, v, family)}" for v in values]
    family, underscore, param = name.rpartition("_")
    if underscore and family in PARAMETRIC:
        return [f"{family}_{_parameter(name, param, family)}"]
    return None


def _ir_measure(name: str) -> Measure:
    match = IR_SYNTAX.match(name)
    if match is None:
        raise _bad(name, "neither trec_eval's nor ir_measures' syntax")
    base, rel, cut = match["name"], match["rel"], match["cut"]
    level = int(rel) if rel is not None else None
    if base == JUDGED:
        if cut is None or not cut.isdigit() or int(cut) < 1:
            raise _bad(name, "Judged needs a whole cut-off, as in Judged@10")
        return Measure(name, f"{JUDGED}_{int(cut)}", None, int(cut))
    families = IR_MEASURES.get(base)
    if families is None:
        raise _bad(name, "not a measure name")
    plain, cut_family = families
    if cut is None:
        if plain is None:
            raise _bad(name, f"{base} needs a cut-off, as in {base}@10")
        return Measure(name, plain, level)
    if cut_family is None:
        raise _bad(name, f"{base} takes no cut-off")
    return Measure(name, f"{cut_family}_{_parameter(name, cut, cut_family)}", level)


def parse_measures(names: Iterable[str]) -> list[Measure]:
    """Every name as measures, in order, without repeats (``P.5,10`` gives two)."""
    found: dict[str, Measure] = {}
    for raw in names:
        name = raw.strip()
        if not name:
            raise _bad(raw, "empty name")
        trec = _trec_names(name)
        measures = [Measure(t, t) for t in trec] if trec is not None else [_ir_measure(name)]
        for measure in measures:
            found.setdefault(measure.name, measure)
    return list(found.values())


@dataclass(slots=True)
class MeasureScores:
    """Means and per-topic values of one run, keyed by the measures' names."""

    measures: dict[str, float]
    per_topic: dict[str, dict[str, float]]
    topics: int  # topics the means are over
    run_topics: int  # qrels topics the run has rows for


def cut_to_depth(scores: Scores, depth: int) -> Scores:
    """trec_eval -M: each topic's first ``depth`` docs in trec_eval's order."""
    return {t: {d: docs[d] for d in trec_order(docs)[:depth]} for t, docs in scores.items()}


class MeasureEvaluator:
    """Any measures for runs against one qrels; build once, evaluate many runs."""

    def __init__(
        self,
        grades: Grades,
        measures: Sequence[Measure],
        *,
        relevance_level: int = 1,
        judged_only: bool = False,
        depth: int | None = None,
    ) -> None:
        if depth is not None and depth < 1:
            raise ValueError(f"depth must be at least 1, not {depth}")
        self.grades = {t: dict(docs) for t, docs in grades.items()}
        self.measures = list(measures)
        self.judged_only = judged_only
        self.depth = depth
        self.topics = sorted(self.grades)
        usable = {t: d for t, d in self.grades.items() if d}  # trec_eval needs a judgment
        by_level: dict[int, set[str]] = {}
        for m in self.measures:
            if m.judged_at is None:
                by_level.setdefault(m.relevance_level or relevance_level, set()).add(m.trec)
        self._evaluators = [
            (level, pytrec_eval.RelevanceEvaluator(usable, keys, relevance_level=level))
            for level, keys in sorted(by_level.items())
        ]
        self._level = relevance_level

    def _topic_values(self, scores: Scores) -> dict[str, dict[str, float]]:
        """topic -> measure name -> value, for the run's qrels topics."""
        run_topics = [t for t in scores if t in self.grades]
        ranked = cut_to_depth(scores, self.depth) if self.depth else scores
        evaluated = prime(ranked, self.grades) if self.judged_only else ranked
        evaluated = {t: d for t, d in evaluated.items() if d and self.grades.get(t)}
        by_level = {
            level: evaluator.evaluate(evaluated) if evaluated else {}
            for level, evaluator in self._evaluators
        }
        values: dict[str, dict[str, float]] = {t: {} for t in run_topics}
        for m in self.measures:
            if m.judged_at is not None:
                judged = judged_fraction(ranked, self.grades, m.judged_at)
                for topic in run_topics:
                    values[topic][m.name] = judged.get(topic, 0.0)
                continue
            found = by_level[m.relevance_level or self._level]
            for topic in run_topics:
                values[topic][m.name] = float(found.get(topic, {}).get(m.trec, 0.0))
        return values

    def evaluate(self, scores: Scores, *, average: Average = "all") -> MeasureScores:
        """Score a deduplicated run (topic -> doc -> score)."""
        per_topic = self._topic_values(scores)
        over = self.topics if average == "all" else list(per_topic)
        means = {
            m.name: (sum(per_topic.get(t, {}).get(m.name, 0.0) for t in over) / len(over))
            if over
            else 0.0
            for m in self.measures
        }
        return MeasureScores(means, per_topic, len(over), len(per_topic))


def evaluate_measures(
    scores: Scores,
    grades: Mapping[str, Mapping[str, int]],
    names: Iterable[str],
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
    depth: int | None = None,
    average: Average = "all",
) -> MeasureScores:
    """One run, measures by name: a convenience over ``MeasureEvaluator``."""
    evaluator = MeasureEvaluator(
        grades,
        parse_measures(names),
        relevance_level=relevance_level,
        judged_only=judged_only,
        depth=depth,
    )
    return evaluator.evaluate(scores, average=average)
