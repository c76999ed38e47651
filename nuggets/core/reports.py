"""The nugget scores as a table, CSV or JSON (``evaluate_nuggets --format``)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence

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


def render_table(results: Sequence[RunNuggetScores], per_topic: bool) -> str:
    header = ["run", "topic", *MEASURES]
    rows = _rows(results, per_topic)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    ]
    return "\n".join(lines) + "\n"


def render_csv(results: Sequence[RunNuggetScores], per_topic: bool) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["run", "topic", *MEASURES])
    writer.writerows(_rows(results, per_topic))
    return out.getvalue()


def render_json(results: Sequence[RunNuggetScores], per_topic: bool) -> str:
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
    return json.dumps(found, indent=2) + "\n"


RENDERERS = {"table": render_table, "csv": render_csv, "json": render_json}
