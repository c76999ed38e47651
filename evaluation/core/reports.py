"""Result tables as text, CSV, JSON and LaTeX: shared by the CLI and the downloads. No Django."""

from __future__ import annotations

import csv
import io
import json
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from evaluation.core.official import unjudged_rule
from evaluation.core.trec_names import parse_measures
from kernel.core.spreadsheet import safe_cell, safe_row

Columns = list[tuple[str, str, str]]  # (key, heading, LaTeX heading)
# ARQMath's kinds, in ARQMath's column order; a task with official measures has its own.
COLUMNS: dict[str, Columns] = {
    "ranked": [
        ("ndcg_prime", "nDCG'", "nDCG$'$"),
        ("map_prime", "MAP'", "MAP$'$"),
        ("p10_prime", "P'@10", "P$'$@10"),
    ],
    "openqa": [("ar", "AR", "AR"), ("p1", "P@1", "P@1")],
}
SORT_KEY = {"ranked": "ndcg_prime", "openqa": "ar"}
# ARQMath-3's other Task 3 figures, shown after AR and P@1 when a result has them (LO from the
# answers' texts, MG and UI from the assessors' extra questions); never tested for significance.
OPENQA_EXTRAS: Columns = [("lo", "LO", "LO"), ("mg", "MG", "MG"), ("ui", "UI", "UI")]
# The averaging conventions, in the words every page and export uses.
AVERAGE_TEXT = {
    "all": "Means over all qrels topics; a topic missing from a run scores 0 (ARQMath-1).",
    "run": "Means over each run's own evaluated topics (ARQMath-2/3, trec_eval without -c).",
}
NAME_WIDTH = 32
FILE_WIDTH = 22


def family(kind: str) -> str:
    return "openqa" if kind == "openqa" else "ranked"


def measure_columns(names: Sequence[str]) -> Columns:
    """Columns of measures named as ``evaluate --measure`` takes them: the name is the key."""
    return [(name, name, _latex_escape(name)) for name in names]


def columns_for(kind: str, names: Sequence[str] | None = None) -> Columns:
    """A task's columns: its official measures, or its kind's ARQMath measures."""
    return measure_columns(names) if names is not None else COLUMNS[family(kind)]


def shown_columns(
    rows: Sequence[Mapping[str, Any]], kind: str, columns: Columns | None = None
) -> Columns:
    """The columns a table shows: the task's, then open QA's extra figures the rows carry."""
    found = columns if columns is not None else COLUMNS[family(kind)]
    if family(kind) == "openqa":
        found = found + [c for c in OPENQA_EXTRAS if any(c[0] in row for row in rows)]
    return found


def _value(row: Mapping[str, Any], key: str) -> float | None:
    """A row's value of a measure; None when the row was scored without it."""
    value = row.get(key)
    return float(value) if isinstance(value, int | float) else None


def sort_rows(
    rows: Sequence[Mapping[str, Any]], kind: str, columns: Columns | None = None
) -> list[Mapping[str, Any]]:
    """ARQMath's tables: best first by the first measure (nDCG' or AR), then by run name."""
    key = columns[0][0] if columns else SORT_KEY[family(kind)]

    def order(row: Mapping[str, Any]) -> tuple[float, str]:
        value = _value(row, key)
        return (-value if value is not None else float("inf"), str(row.get("run", "")))

    return sorted(rows, key=order)


def incomplete_note(unjudged: int, pool_items: int | None, rule: str) -> str:
    """What results on a qrels version exported with unjudged items must say; ``rule`` is how
    the task scores them (``evaluation.core.official.unjudged_rule``)."""
    of = f" of {pool_items}" if pool_items else ""
    return (
        f"Incomplete qrels: {unjudged}{of} pool items were unjudged when they were exported; "
        f"{rule}."
    )


TOPIC_SET = "Means over the "  # how an open QA result's note names its topic set
EXTRA_NOTES = ("LO: ", "MG and UI: ")  # evaluation.core.lexical_overlap, answer_questions


def average_notes(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """How the rows' means were taken (two lines if the rows mix conventions), and over which
    topic set when a result names it (open QA)."""
    notes = [AVERAGE_TEXT[a] for a in sorted({str(r["average"]) for r in rows if "average" in r})]
    topic_sets = {n for r in rows for n in r.get("notes") or [] if n.startswith(TOPIC_SET)}
    # Open QA's extra figures say once how they were computed (the same for every run).
    extras = {n for r in rows for n in r.get("notes") or [] if n.startswith(EXTRA_NOTES)}
    return notes + sorted(topic_sets) + sorted(extras)


def protocol_notes(
    rows: Sequence[Mapping[str, Any]], kind: str, columns: Columns | None
) -> list[str]:
    """The averaging convention(s) and, for incomplete qrels, a warning: one line each. The
    rows' own ``unjudged_rule`` (the app's results carry it) or else the rule of ``kind`` with
    ``columns`` (given: the rows were scored with those trec_eval measures)."""
    notes = average_notes(rows)
    unjudged = max((int(r.get("qrels_unjudged") or 0) for r in rows), default=0)
    if unjudged:
        names = [key for key, _, _ in columns or ()]
        rule = str(rows[0].get("unjudged_rule") or unjudged_rule(kind, names))
        notes.append(incomplete_note(unjudged, rows[0].get("qrels_pool_items"), rule))
    return notes


def _extra_fields(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """CSV columns present only when known: the averaging convention, qrels completeness."""
    return [k for k in ("average", "qrels_complete") if any(k in r for r in rows)]


def _cell(row: Mapping[str, Any], key: str, digits: int) -> str:
    value = _value(row, key)
    return "" if value is None else f"{value:.{digits}f}"


def as_table(rows: Sequence[Mapping[str, Any]], kind: str, columns: Columns | None = None) -> str:
    """A plain-text table that fits 100 columns (ARQMath's three measures), then the notes."""
    notes = protocol_notes(rows, kind, columns)
    columns = shown_columns(rows, kind, columns)
    widths = [max(8, len(h) + 1) for _, h, _ in columns]
    head = f"{'Run':<{NAME_WIDTH}} {'File':<{FILE_WIDTH}}" + "".join(
        f"{h:>{w}}" for (_, h, _), w in zip(columns, widths, strict=True)
    )
    head += f"{'Topics':>8}{'Judged@10':>11}"
    lines = [head, "-" * len(head)]
    for row in sort_rows(rows, kind, columns):
        name = _clip(str(row["run"]), NAME_WIDTH)
        file = _clip(str(row.get("file", "")), FILE_WIDTH)
        values = "".join(
            f"{_cell(row, k, 4):>{w}}" for (k, _, _), w in zip(columns, widths, strict=True)
        )
        coverage = f"{row['run_topics']}/{row['topics']}{row['judged_at_10']:>11.3f}"
        lines.append(f"{name:<{NAME_WIDTH}} {file:<{FILE_WIDTH}}{values}{coverage:>19}")
    notes = [textwrap.fill(note, len(head)) for note in notes]
    return "\n".join(lines + ([""] if notes else []) + notes) + "\n"


def as_csv(rows: Sequence[Mapping[str, Any]], kind: str, columns: Columns | None = None) -> str:
    keys = [k for k, _, _ in shown_columns(rows, kind, columns)]
    fields = ["run", "file", *keys, "topics", "run_topics", "judged_at_10", *_extra_fields(rows)]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
    writer.writerow({k: safe_cell(k) for k in fields})  # measure names are user text
    for row in sort_rows(rows, kind, columns):
        writer.writerow({k: safe_cell(row.get(k, "")) for k in fields})
    return out.getvalue()


def per_topic_csv(
    rows: Sequence[Mapping[str, Any]], kind: str, columns: Columns | None = None
) -> str:
    """One line per (run, topic) with every measure (and Task 3's answer id)."""
    keys = [k for k, _, _ in shown_columns(rows, kind, columns)]
    answers = family(kind) == "openqa"
    extra = [k for k in _extra_fields(rows) if k != "average"]  # per-topic values: no mean
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        safe_row(["run", "topic", *keys, "judged_at_10", *(["answer"] if answers else []), *extra])
    )
    for row in sort_rows(rows, kind, columns):
        for topic, values in row.get("per_topic", {}).items():
            writer.writerow(
                safe_row(
                    [
                        row["run"],
                        topic,
                        *(values.get(k, "") for k in keys),
                        values.get("judged_at_10", ""),
                        *([row.get("answers", {}).get(topic, "")] if answers else []),
                        *(row.get(k, "") for k in extra),
                    ]
                )
            )
    return out.getvalue()


def as_json(rows: Sequence[Mapping[str, Any]], kind: str, columns: Columns | None = None) -> str:
    return json.dumps(sort_rows(rows, kind, columns), indent=2, sort_keys=False) + "\n"


def as_latex(rows: Sequence[Mapping[str, Any]], kind: str, columns: Columns | None = None) -> str:
    """A booktabs table, the best value of each measure in bold, as ARQMath's papers show."""
    notes = protocol_notes(rows, kind, columns)
    columns = shown_columns(rows, kind, columns)
    ordered = sort_rows(rows, kind, columns)
    best = {
        k: max((v for r in ordered if (v := _value(r, k)) is not None), default=0.0)
        for k, _, _ in columns
    }
    lines = [f"% {note}" for note in notes] + [
        "\\begin{tabular}{l" + "r" * len(columns) + "}",
        "\\toprule",
        "Run & " + " & ".join(h for _, _, h in columns) + " \\\\",
        "\\midrule",
    ]
    for row in ordered:
        cells = []
        for key, _, _ in columns:
            text = _cell(row, key, 3)
            cells.append(f"\\textbf{{{text}}}" if text and _value(row, key) == best[key] else text)
        lines.append(f"{_latex_escape(str(row['run']))} & " + " & ".join(cells) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


RENDERERS = {"table": as_table, "csv": as_csv, "json": as_json, "latex": as_latex}


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _latex_escape(text: str) -> str:
    for char, escaped in (("\\", "\\textbackslash{}"), ("_", "\\_"), ("&", "\\&"), ("%", "\\%")):
        text = text.replace(char, escaped)
    for char in "#$":
        text = text.replace(char, "\\" + char)
    return text


# Any measures (``evaluate --measure``): rows carry a ``measures`` map and ``per_topic`` values.
def _measure_names(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    return list(rows[0]["measures"]) if rows else []


def _measure_lines(rows: Sequence[Mapping[str, Any]], per_topic: bool) -> list[list[Any]]:
    """[run, topic, values...] rows: the mean ("all") then, if asked, each topic."""
    names = _measure_names(rows)
    lines: list[list[Any]] = []
    for row in rows:
        lines.append([row["run"], "all", *(row["measures"][n] for n in names)])
        if per_topic:
            for topic, values in sorted(row["per_topic"].items()):
                lines.append([row["run"], topic, *(values.get(n, 0.0) for n in names)])
    return lines


def _trec_key(name: str) -> str:
    return next((m.trec for m in parse_measures([name]) if m.name == name), name)


def measures_table(rows: Sequence[Mapping[str, Any]], per_topic: bool = False) -> str:
    """trec_eval's layout (``-q`` for per-topic lines): measure, topic ("all" for the summary),
    value (counts as whole numbers, the rest with 4 decimals), then the run; as in ``-q``,
    geometric-mean measures have no per-topic lines."""
    names = _measure_names(rows)
    keys = {name: _trec_key(name) for name in names}
    out = []
    for line in _measure_lines(rows, per_topic):
        run, topic, values = line[0], line[1], line[2:]
        for name, v in zip(names, values, strict=True):
            key = keys[name]
            if topic != "all" and key.startswith("gm_"):
                continue
            shown = f"{round(float(v))}" if key.startswith("num_") else f"{float(v):.4f}"
            out.append(f"{name:<22}\t{topic}\t{shown}\t{run}")
    notes = [textwrap.fill(note, 100) for note in average_notes(rows)]
    return "\n".join(out + ([""] if notes else []) + notes) + "\n"


def measures_csv(rows: Sequence[Mapping[str, Any]], per_topic: bool = False) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(safe_row(["run", "topic", *_measure_names(rows)]))
    for line in _measure_lines(rows, per_topic):
        writer.writerow([safe_cell(cell) for cell in line])
    return out.getvalue()


def measures_json(rows: Sequence[Mapping[str, Any]], per_topic: bool = False) -> str:
    """One object per run with its ``measures`` map (and ``per_topic`` if asked)."""
    shown = [{k: v for k, v in r.items() if per_topic or k != "per_topic"} for r in rows]
    return json.dumps(shown, indent=2) + "\n"


def measures_latex(rows: Sequence[Mapping[str, Any]], per_topic: bool = False) -> str:
    """A booktabs table of the means, one row per run (per-topic values are not typeset)."""
    names = _measure_names(rows)
    lines = [f"% {note}" for note in average_notes(rows)] + [
        "\\begin{tabular}{l" + "r" * len(names) + "}",
        "\\toprule",
        "Run & " + " & ".join(_latex_escape(n) for n in names) + " \\\\",
        "\\midrule",
    ]
    for row in rows:
        cells = [f"{float(row['measures'][n]):.4f}" for n in names]
        lines.append(f"{_latex_escape(str(row['run']))} & " + " & ".join(cells) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


MEASURE_RENDERERS = {
    "table": measures_table,
    "csv": measures_csv,
    "json": measures_json,
    "latex": measures_latex,
}


SIGNIFICANCE_FIELDS = (
    "mean_difference",
    "t_statistic",
    "t_p",
    "t_p_holm",
    "randomization_p",
    "randomization_p_holm",
)


def significance_csv(tests: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """Every pair's tests, measure by measure: what the results page shows only in part."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["measure", "run_a", "run_b", *SIGNIFICANCE_FIELDS])
    for measure, pairs in tests.items():
        for pair in pairs:
            values = [pair.get(field) for field in SIGNIFICANCE_FIELDS]
            writer.writerow(safe_row([measure, pair["a"], pair["b"], *values]))
    return out.getvalue()
