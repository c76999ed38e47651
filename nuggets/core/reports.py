"""The nugget scores as a table, CSV or JSON (``evaluate_nuggets --format``), and with
``--significance`` the paired tests between every two runs after them (in JSON, beside them)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass

from evaluation.core.significance import PairedTest
from nuggets.core.evaluate import RunNuggetScores
from nuggets.core.scores import MEASURES


def _rows(results: Sequence[RunNuggetScores], per_topic: bool) -> list[list[str]]:
    rows = []
    for result in results:
        if per_topic:
            for topic, scores in result.per_topic.items():
                rows.append([result.run, topic, *(f"{scores[m]:.4f}" for m in MEASURES)])
        rows.append([result.run, "all", *(f"{result.measures[m]:.4f}" for m in MEASURES)])
    return rows


@dataclass(frozen=True)
class Significance:
    """Paired tests of one measure between every two runs, and how they were run."""

    measure: str
    trials: int
    seed: int
    tests: Sequence[PairedTest]


SIGNIFICANCE_HEADER = ["run_a", "run_b", "mean_difference", "randomization_p", "holm_p", "t_p"]


def _significance_rows(significance: Significance) -> list[list[str]]:
    return [
        [
            t.a,
            t.b,
            f"{t.mean_difference:+.4f}",
            f"{t.randomization_p:.4f}",
            f"{t.randomization_p_holm:.4f}",
            f"{t.t_p:.4f}",
        ]
        for t in significance.tests
    ]


def _aligned(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    ]
    return "\n".join(lines) + "\n"


def _significance_note(significance: Significance) -> str:
    return (
        f"paired randomization test on {significance.measure}, {significance.trials:,} trials, "
        f"seed {significance.seed}; holm_p: Holm-corrected over the "
        f"{len(significance.tests)} pairs"
    )


def render_table(
    results: Sequence[RunNuggetScores],
    per_topic: bool,
    significance: Significance | None = None,
) -> str:
    text = _aligned(["run", "topic", *MEASURES], _rows(results, per_topic))
    if significance is not None:
        text += f"\n# {_significance_note(significance)}\n"
        text += _aligned(SIGNIFICANCE_HEADER, _significance_rows(significance))
    return text


def render_csv(
    results: Sequence[RunNuggetScores],
    per_topic: bool,
    significance: Significance | None = None,
) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["run", "topic", *MEASURES])
    writer.writerows(_rows(results, per_topic))
    if significance is not None:  # a second table after a blank line, as in the table format
        out.write(f"\n# {_significance_note(significance)}\n")
        writer.writerow(SIGNIFICANCE_HEADER)
        writer.writerows(_significance_rows(significance))
    return out.getvalue()


def render_json(
    results: Sequence[RunNuggetScores],
    per_topic: bool,
    significance: Significance | None = None,
) -> str:
    found = []
    for result in results:
        entry: dict[str, object] = {
            "run": result.run,
            "topics": result.topics,
            "measures": result.measures,
        }
        if per_topic:
            entry["per_topic"] = result.per_topic
        found.append(entry)
    if significance is None:
        return json.dumps(found, indent=2) + "\n"
    tests = [
        {
            "a": t.a,
            "b": t.b,
            "mean_difference": t.mean_difference,
            "randomization_p": t.randomization_p,
            "randomization_p_holm": t.randomization_p_holm,
            "t": t.t_statistic,
            "t_p": t.t_p,
            "t_p_holm": t.t_p_holm,
        }
        for t in significance.tests
    ]
    document = {
        "runs": found,
        "significance": {
            "measure": significance.measure,
            "test": "paired randomization (sign-flip), Holm-corrected over the pairs",
            "trials": significance.trials,
            "seed": significance.seed,
            "pairs": tests,
        },
    }
    return json.dumps(document, indent=2) + "\n"


RENDERERS = {"table": render_table, "csv": render_csv, "json": render_json}
