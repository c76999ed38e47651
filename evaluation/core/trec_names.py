"""Measure names, trec_eval's or ir_measures', read into what pytrec_eval computes: pure.

trec_eval's names (``map``, ``P_10``, ``P.5,10``, ``ndcg_cut_10``, ``iprec_at_recall_0.10``,
``set_F``, ``gm_map``, ``num_rel``, …) are checked against ``pytrec_eval.supported_measures``
(which runs trec_eval's own code). ir_measures' names (``nDCG@10``, ``AP(rel=2)``,
``P(rel=2)@10``, ``RR``, ``R@100``, ``NumRet(rel=1)``, ``Judged@10``,
``nDCG(judged_only=True)``, …) map to the same trec_eval measures, with their parameters:
``rel=N`` is that measure's relevance level (trec_eval ``-l``), ``judged_only=True`` trec_eval's
``-J``. ``Judged@k`` is not trec_eval's: the evaluator computes it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import pytrec_eval

JUDGED = "Judged"
# trec_eval families that take a cut-off or parameter (P_10, iprec_at_recall_0.10, ...).
PARAMETRIC = frozenset(
    {"P", "recall", "relative_P", "ndcg_cut", "map_cut", "Rprec_mult", "iprec_at_recall", "success"}
)
# Families whose trec_eval key prints its parameter with two decimals.
DECIMAL = frozenset({"iprec_at_recall", "Rprec_mult"})
# trec_eval "measures" that are not numbers: nothing to average, store or test.
NOT_NUMBERS = {
    "runid": "it is the run's name, not a number",
    "relstring": "it is a string of grades, not a number",
}
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
    "NumQ": ("num_q", None),
    "NumRet": ("num_ret", None),  # NumRet(rel=N) is num_rel_ret, as in ir_measures
    "NumRel": ("num_rel", None),
    "NumRelRet": ("num_rel_ret", None),
    "infAP": ("infAP", None),
    "SetAP": ("set_map", None),
    "SetP": ("set_P", None),
    "SetR": ("set_recall", None),
    "SetF": ("set_F", None),
}
IR_SYNTAX = re.compile(r"^(?P<name>[A-Za-z]+)(?:\((?P<params>[^()]*)\))?(?:@(?P<cut>[0-9.]+))?$")
EXAMPLES = "map, P_10, P.5,10, ndcg_cut_10, ndcg, recip_rank, bpref, nDCG@10, AP(rel=2), Judged@10"


class MeasureNameError(ValueError):
    """A measure name neither trec_eval nor ir_measures knows."""


@dataclass(frozen=True, slots=True)
class Measure:
    """One measure: the name asked for, trec_eval's name, and its own options."""

    name: str
    trec: str  # pytrec_eval's key ("P_10"); for Judged@k, "Judged_k"
    relevance_level: int | None = None  # None: the evaluation's level
    judged_at: int | None = None  # Judged@k: k
    judged_only: bool | None = None  # None: the evaluation's --judged-only


def _bad(name: str, why: str) -> MeasureNameError:
    return MeasureNameError(f"unknown measure {name!r}: {why}; examples: {EXAMPLES}")


def _parameter(name: str, value: str, family: str = "") -> str:
    try:
        number = float(value)
    except ValueError:
        raise _bad(name, f"{value!r} is not a number") from None
    if number < 0 or number != number or number == float("inf"):
        raise _bad(name, f"{value!r} is not a usable parameter")
    if family in DECIMAL:  # trec_eval's key has two decimals
        return f"{number:.2f}"
    if not value.isdigit() or int(value) < 1:
        raise _bad(name, f"{value!r} is not a whole cut-off of at least 1")
    return str(int(value))


def _trec_names(name: str) -> list[str] | None:
    """trec_eval syntax -> pytrec_eval keys, or None if it is not trec_eval's syntax."""
    if name in NOT_NUMBERS:
        raise _bad(name, NOT_NUMBERS[name])
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


def _ir_params(name: str, text: str | None) -> tuple[int | None, bool | None]:
    """``rel=2, judged_only=True`` -> (2, True); anything else is an error."""
    level: int | None = None
    judged_only: bool | None = None
    for part in (text or "").split(","):
        if not part.strip():
            if text is not None and not text.strip():
                raise _bad(name, "empty parentheses")
            continue
        key, equals, value = (s.strip() for s in part.partition("="))
        if not equals:
            raise _bad(name, f"{part.strip()!r} is not key=value")
        if key == "rel":
            if not value.isdigit():
                raise _bad(name, f"rel={value} is not a whole grade")
            level = int(value)
        elif key == "judged_only":
            if value not in ("True", "False"):
                raise _bad(name, f"judged_only={value} is not True or False")
            judged_only = value == "True"
        else:
            raise _bad(name, f"parameter {key!r} is not one we take (rel, judged_only)")
    return level, judged_only


def _ir_measure(name: str) -> Measure:
    match = IR_SYNTAX.match(name)
    if match is None:
        raise _bad(name, "neither trec_eval's nor ir_measures' syntax")
    base, cut = match["name"], match["cut"]
    level, judged_only = _ir_params(name, match["params"])
    if base == JUDGED:
        if cut is None or not cut.isdigit() or int(cut) < 1 or match["params"] is not None:
            raise _bad(name, "Judged needs a whole cut-off and no parameters, as in Judged@10")
        return Measure(name, f"{JUDGED}_{int(cut)}", None, int(cut))
    families = IR_MEASURES.get(base)
    if families is None:
        raise _bad(name, "not a measure name")
    plain, cut_family = families
    if cut is None:
        if plain is None:
            raise _bad(name, f"{base} needs a cut-off, as in {base}@10")
        if base == "NumRet" and level is not None:
            plain = "num_rel_ret"
        return Measure(name, plain, level, None, judged_only)
    if cut_family is None:
        raise _bad(name, f"{base} takes no cut-off")
    trec = f"{cut_family}_{_parameter(name, cut, cut_family)}"
    return Measure(name, trec, level, None, judged_only)


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


def measure_names_check(names: Iterable[str]) -> list[str]:
    """The names cleaned of blanks, in order, each parsed (MeasureNameError names a bad one)."""
    cleaned = [n.strip() for n in names if n.strip()]
    parse_measures(cleaned)
    return list(dict.fromkeys(cleaned))
