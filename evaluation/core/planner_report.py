"""The pool planner's table as text, CSV and JSON (``manage.py simulate_pools --format``).

JSON is a list with one object per strategy and budget (``PlanRow.as_dict``). Text and CSV have
one line per strategy, budget and measure, so that each measure's tau, tau-AP and largest
group drop (with the group) sit side by side however many measures there are.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Sequence

from evaluation.core.pool_planner import PlanRow
from kernel.core.spreadsheet import safe_row

HEADINGS = (
    "strategy",
    "budget",
    "judgments",
    "relevant",
    "relevant_share",
    "measure",
    "tau",
    "tau_ap",
    "max_group_drop",
    "group",
)


def _lines(rows: Sequence[PlanRow]) -> list[tuple[object, ...]]:
    found: list[tuple[object, ...]] = []
    for row in rows:
        for name in row.tau:
            drop = row.max_group_drop[name]
            found.append(
                (
                    row.strategy,
                    row.budget,
                    row.judgments,
                    row.relevant,
                    row.relevant_share,
                    name,
                    row.tau[name],
                    row.tau_ap[name],
                    drop["drop"],
                    drop["group"] or "",
                )
            )
    return found


def render_json(rows: Sequence[PlanRow]) -> str:
    return json.dumps([row.as_dict() for row in rows], indent=2) + "\n"


def render_csv(rows: Sequence[PlanRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADINGS)
    for line in _lines(rows):
        writer.writerow(safe_row(line))
    return out.getvalue()


def render_table(rows: Sequence[PlanRow]) -> str:
    widths = (12, 7, 9, 8, 6, 12, 6, 6, 8, 0)
    head = ("strategy", "budget", "judged", "relevant", "share", "measure", "tau", "tauAP")
    out = [
        " ".join(f"{h:<{w}}" for h, w in zip(head, widths, strict=False))
        + " max group drop (group)"
    ]
    for strategy, budget, judged, relevant, share, name, tau, tap, drop, group in _lines(rows):
        out.append(
            f"{strategy:<12} {budget:>7} {judged:>9} {relevant:>8} {share:>6.3f} "
            f"{name:<12} {_tau(tau)} {_tau(tap)} {drop:>8.4f} {group}".rstrip()
        )
    return "\n".join(out) + "\n"


def _tau(value: object) -> str:
    """A correlation to three places, or a dash where it is undefined (a ranking ties every
    run: ``pool_planner``)."""
    return f"{value:>6.3f}" if isinstance(value, float) else f"{'—':>6}"


RENDERERS: dict[str, Callable[[Sequence[PlanRow]], str]] = {
    "table": render_table,
    "csv": render_csv,
    "json": render_json,
}
