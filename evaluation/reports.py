"""Result tables as text, CSV, JSON and LaTeX: shared by the CLI and the downloads. No Django."""

from __future__ import annotations

import csv
import io
import json
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from collection.formats.spreadsheet import safe_cell, safe_row

# (key, heading, LaTeX heading) per task kind, in ARQMath's column order.
COLUMNS: dict[str, list[tuple[str, str, str]]] = {
    "ranked": [
        ("ndcg_prime", "nDCG'", "nDCG$'$"),
        ("map_prime", "MAP'", "MAP$'$"),
        ("p10_prime", "P'@10", "P$'$@10"),
    ],
    "openqa": [("ar", "AR", "AR"), ("p1", "P@1", "P@1")],
}
SORT_KEY = {"ranked": "ndcg_prime", "openqa": "ar"}
# The averaging conventions (issue 12 §7), in the words every page and export uses.
AVERAGE_TEXT = {
    "all": "Means over all qrels topics; a topic missing from a run scores 0 (ARQMath-1).",
    "run": "Means over each run's own evaluated topics (ARQMath-2/3, trec_eval without -c).",
}
NAME_WIDTH = 32
FILE_WIDTH = 22


def family(kind: str) -> str:
    return "openqa" if kind == "openqa" else "ranked"


def sort_rows(rows: Sequence[Mapping[str, Any]], kind: str) -> list[Mapping[str, Any]]:
    """ARQMath's tables: best first by the first measure (nDCG' or AR), then by run name."""
    key = SORT_KEY[family(kind)]
    return sorted(rows, key=lambda r: (-float(r.get(key, 0.0)), str(r.get("run", ""))))


def incomplete_note(unjudged: int, pool_items: int | None) -> str:
    """What results on a qrels version exported with unjudged items must say."""
    of = f" of {pool_items}" if pool_items else ""
    return (
        f"Incomplete qrels: {unjudged}{of} pool items were unjudged when they were exported; "
        "unjudged results are left out before scoring."
    )


def average_notes(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """How the rows' means were taken (two lines if the rows mix conventions)."""
    return [AVERAGE_TEXT[a] for a in sorted({str(r["average"]) for r in rows if "average" in r})]


def protocol_notes(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The averaging convention(s) and, for incomplete qrels, a warning: one line each."""
    notes = average_notes(rows)
    unjudged = max((int(r.get("qrels_unjudged") or 0) for r in rows), default=0)
    if unjudged:
        notes.append(incomplete_note(unjudged, rows[0].get("qrels_pool_items")))
    return notes


def _extra_fields(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """CSV columns present only when known: the averaging convention, qrels completeness."""
    return [k for k in ("average", "qrels_complete") if any(k in r for r in rows)]


def as_table(rows: Sequence[Mapping[str, Any]], kind: str) -> str:
    """A plain-text table that fits 100 columns, then the protocol notes."""
    columns = COLUMNS[family(kind)]
    head = f"{'Run':<{NAME_WIDTH}} {'File':<{FILE_WIDTH}}" + "".join(
        f"{h:>8}" for _, h, _ in columns
    )
    head += f"{'Topics':>8}{'Judged@10':>11}"
    lines = [head, "-" * len(head)]
    for row in sort_rows(rows, kind):
        name = _clip(str(row["run"]), NAME_WIDTH)
        file = _clip(str(row.get("file", "")), FILE_WIDTH)
        values = "".join(f"{float(row[k]):>8.4f}" for k, _, _ in columns)
        coverage = f"{row['run_topics']}/{row['topics']}{row['judged_at_10']:>11.3f}"
        lines.append(f"{name:<{NAME_WIDTH}} {file:<{FILE_WIDTH}}{values}{coverage:>19}")
    notes = [textwrap.fill(note, len(head)) for note in protocol_notes(rows)]
    return "\n".join(lines + ([""] if notes else []) + notes) + "\n"


def as_csv(rows: Sequence[Mapping[str, Any]], kind: str) -> str:
    columns = [k for k, _, _ in COLUMNS[family(kind)]]
    fields = ["run", "file", *columns, "topics", "run_topics", "judged_at_10", *_extra_fields(rows)]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in sort_rows(rows, kind):
        writer.writerow({k: safe_cell(row.get(k, "")) for k in fields})
    return out.getvalue()


def per_topic_csv(rows: Sequence[Mapping[str, Any]], kind: str) -> str:
    """One line per (run, topic) with every measure (and Task 3's answer id)."""
    columns = [k for k, _, _ in COLUMNS[family(kind)]]
    answers = family(kind) == "openqa"
    extra = [k for k in _extra_fields(rows) if k != "average"]  # per-topic values: no mean
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["run", "topic", *columns, "judged_at_10", *(["answer"] if answers else []), *extra]
    )
    for row in sort_rows(rows, kind):
        for topic, values in row.get("per_topic", {}).items():
            writer.writerow(
                safe_row(
                    [
                        row["run"],
                        topic,
                        *(values.get(k, 0.0) for k in columns),
                        values["judged_at_10"],
                        *([row.get("answers", {}).get(topic, "")] if answers else []),
                        *(row.get(k, "") for k in extra),
                    ]
                )
            )
    return out.getvalue()


def as_json(rows: Sequence[Mapping[str, Any]], kind: str) -> str:
    return json.dumps(sort_rows(rows, kind), indent=2, sort_keys=False) + "\n"


def as_latex(rows: Sequence[Mapping[str, Any]], kind: str) -> str:
    """A booktabs table, the best value of each measure in bold, as ARQMath's papers show."""
    columns = COLUMNS[family(kind)]
    ordered = sort_rows(rows, kind)
    best = {k: max((float(r[k]) for r in ordered), default=0.0) for k, _, _ in columns}
    lines = [f"% {note}" for note in protocol_notes(rows)] + [
        "\\begin{tabular}{l" + "r" * len(columns) + "}",
        "\\toprule",
        "Run & " + " & ".join(h for _, _, h in columns) + " \\\\",
        "\\midrule",
    ]
    for row in ordered:
        cells = []
        for key, _, _ in columns:
            text = f"{float(row[key]):.3f}"
            cells.append(f"\\textbf{{{text}}}" if float(row[key]) == best[key] else text)
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


def measures_table(rows: Sequence[Mapping[str, Any]], per_topic: bool = False) -> str:
    """trec_eval's layout: measure, topic ("all" for the mean), value, one run after another."""
    names = _measure_names(rows)
    out = []
    for line in _measure_lines(rows, per_topic):
        run, topic, values = line[0], line[1], line[2:]
        out += [
            f"{name:<24}\t{topic}\t{float(v):.4f}\t{run}"
            for name, v in zip(names, values, strict=True)
        ]
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
