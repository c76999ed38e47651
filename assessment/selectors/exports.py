"""CSV exports for organizers: every judgment, and the agreement tables.

Rows are produced lazily so the judgments of a whole campaign stream out without being held
in memory; views wrap these generators in a StreamingHttpResponse.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from assessment.core.agreement import Agreement
from assessment.models import Judgment
from assessment.selectors.agreement import AgreementTable
from collection.models import RetrievalTask
from kernel.core.spreadsheet import safe_row

__all__ = ["AGREEMENT_COLUMNS", "JUDGMENT_COLUMNS", "agreement_rows", "csv_lines", "judgment_rows"]

JUDGMENT_COLUMNS = (
    "topic",
    "item",
    "hit",
    "post_id",
    "formula_id",
    "assessor",
    "purpose",
    "training_round",
    "grade",
    "flag",
    "comment",
    "active_seconds",
    "revision",
    "created_at",
    "updated_at",
    "guidelines_version",  # 0: made under the built-in defaults
    "answers",  # the extra questions' answers: "mg=yes ui=no" (empty where none was asked)
)


class _Echo:
    """A file-like object whose write() hands the line back (Django's streaming CSV recipe)."""

    def write(self, value: str) -> str:
        return value


def csv_lines(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> Iterator[str]:
    """Encode rows as CSV lines, header first; every cell made safe to open in a spreadsheet."""
    writer = csv.writer(_Echo())
    yield writer.writerow(header)
    for row in rows:
        yield writer.writerow(safe_row(row))


def judgment_rows(task: RetrievalTask) -> Iterator[tuple[Any, ...]]:
    """Every judgment of the task (official, dual and training), in topic and pool order."""
    rows = (
        Judgment.objects.filter(assignment__topic__task=task)
        .order_by("assignment__topic_id", "hit__item__display_order", "hit__position", "id")
        .values_list(
            "assignment__topic__number",
            "hit__item__key",
            "hit_id",
            "hit__post_id",
            "hit__formula_id",
            "assessor__username",
            "assignment__purpose",
            "assignment__training_round__name",
            "grade",
            "flag",
            "comment",
            "active_seconds",
            "revision",
            "created_at",
            "updated_at",
            "guidelines_version__version",
            "answers",
        )
    )
    for *head, seconds, revision, created_at, updated_at, version, answers in rows.iterator(
        chunk_size=5000
    ):
        yield (
            *("" if v is None else v for v in head),
            round(seconds, 1),
            revision,
            created_at.isoformat(),
            updated_at.isoformat(),
            version or 0,
            answers_text(answers),
        )


def answers_text(answers: Any) -> str:
    """A judgment's answers to the extra questions for a CSV cell: "mg=yes ui=no"."""
    if not isinstance(answers, dict):
        return ""
    return " ".join(f"{code}={'yes' if value else 'no'}" for code, value in sorted(answers.items()))


def _value(agreement: Agreement) -> str:
    return f"{agreement.value:.4f}" if agreement.value is not None else ""


AGREEMENT_COLUMNS = (
    "scope",
    "assessor_a",
    "assessor_b",
    "shared_hits",
    "kappa_4way",
    "kappa_binary",
    "kappa_linear",
    "kappa_quadratic",
    "percentage_agreement",
    "note",
)


def agreement_rows(scope: str, table: AgreementTable) -> Iterator[tuple[Any, ...]]:
    """Pairs, then per-assessor means, then gold agreement and alpha, under one header."""
    yield from _pair_rows(scope, table)
    yield from _topic_rows(scope, table)
    yield from _mean_rows(scope, table)
    yield from _gold_rows(scope, table)
    for label, alpha in (("ordinal", table.alpha_ordinal), ("nominal", table.alpha_nominal)):
        note = alpha.reason
        yield (f"{scope} alpha {label}", "(all)", "", alpha.n, _value(alpha), "", "", "", "", note)


def _pair_cells(scope: str, first: Any, second: Any, pair: Any) -> tuple[Any, ...]:
    return (
        scope,
        first,
        second,
        pair.shared,
        _value(pair.kappa),
        _value(pair.kappa_binary),
        _value(pair.kappa_linear),
        _value(pair.kappa_quadratic),
        _value(pair.percentage),
        pair.kappa.reason or pair.kappa_binary.reason,
    )


def _pair_rows(scope: str, table: AgreementTable) -> Iterator[tuple[Any, ...]]:
    for first, second, pair, _ in table.pair_rows:
        yield _pair_cells(scope, first, second, pair)


def _topic_rows(scope: str, table: AgreementTable) -> Iterator[tuple[Any, ...]]:
    for topic, first, second, pair in table.topic_rows:
        yield _pair_cells(f"{scope} topic {topic}", first, second, pair)


def _mean_rows(scope: str, table: AgreementTable) -> Iterator[tuple[Any, ...]]:
    for mean in table.means:
        kappa, binary = mean.mean_kappa, mean.mean_kappa_binary
        name = table.name(mean.assessor)
        yield (
            f"{scope} mean",
            name,
            "(all others)",
            mean.partners,
            _value(kappa),
            _value(binary),
            "",
            "",
            "",
            kappa.reason,
        )


def _gold_rows(scope: str, table: AgreementTable) -> Iterator[tuple[Any, ...]]:
    for gold in table.gold:
        same = "" if gold.percentage is None else f"{gold.percentage:.4f}"
        yield (
            f"{scope} gold",
            table.name(gold.assessor),
            "(gold)",
            gold.shared,
            _value(gold.kappa),
            _value(gold.kappa_binary),
            "",
            "",
            same,
            gold.kappa.reason,
        )
