"""Task 3 answer ids: pure, no Django.

ARQMath-3's Task 3 qrels give every run's answer to a topic its own id (``d_1``, ``d_248``…)
although equal texts were judged once, and the organizers scored the native run files
(``topic rank score run sources answer``, which carry no id) through a map from (run, topic) to
answer id. Here:

- In the app, a run's answer keeps its own id, ``a<run id>.<first 12 hex of the text's digest>``:
  two runs with the same text share one pool item (judged once) but have two qrels rows with
  the same grade, and a run replaced by a different text does not inherit the old grade.
- From files, ``--answer-map`` reads a TSV ``run tag <TAB> topic <TAB> answer id`` (a header
  line ``run topic answer…`` is allowed) to give native run files their ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from evaluation.core.qrels import QrelsEntry, qrels_sorted
from pooling.core.algorithms.openqa import ANSWER_KEY_PREFIX

AnswerMap = dict[tuple[str, str], str]  # (run tag, topic) -> answer id
MAX_PROBLEMS = 50


def answer_id(run_id: int, item_key: str) -> str:
    """The id of run ``run_id``'s answer whose pool item key is ``item_key`` (qa-<digest>)."""
    return f"a{run_id}.{item_key.removeprefix(ANSWER_KEY_PREFIX)[:12]}"


def answer_entries(
    entries: Iterable[QrelsEntry], runs_by_item: Mapping[tuple[str, str], Iterable[int]]
) -> list[QrelsEntry]:
    """Item-level Task 3 qrels (one row per judged answer text) -> one row per run's answer,
    each with the grade its shared pool item got."""
    rows = [
        QrelsEntry(entry.topic, answer_id(run, entry.doc), entry.grade)
        for entry in entries
        for run in sorted(set(runs_by_item.get((entry.topic, entry.doc), ())))
    ]
    return qrels_sorted(rows)


class AnswerMapError(ValueError):
    """An answer map that cannot be read; ``problems`` lists (line, message)."""

    def __init__(self, name: str, problems: list[tuple[int, str]]) -> None:
        self.problems = problems
        shown = "; ".join(f"line {n}: {m}" for n, m in problems[:5])
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        super().__init__(f"{name}: {shown}{more}")


def answer_map_parse(text: str, *, name: str = "answer map") -> AnswerMap:
    """Read ``run tag, topic, answer id`` rows (tabs or spaces); every problem with its line."""
    found: AnswerMap = {}
    problems: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if number == 1 and [f.lower() for f in fields[:2]] == ["run", "topic"]:
            continue  # header
        if len(fields) != 3:
            problems.append(
                (number, f"expected 3 columns (run tag, topic, answer id), found {len(fields)}")
            )
        else:
            key = (fields[0], fields[1])
            if key in found and found[key] != fields[2]:
                problems.append(
                    (number, f"run {fields[0]} topic {fields[1]} already has answer {found[key]}")
                )
            found[key] = fields[2]
        if len(problems) >= MAX_PROBLEMS:
            break
    if problems:
        raise AnswerMapError(name, problems)
    if not found:
        raise AnswerMapError(name, [(0, "no rows")])
    return found


def answer_map_read(path: str | Path) -> AnswerMap:
    path = Path(path)
    return answer_map_parse(path.read_text(encoding="utf-8"), name=path.name)


def run_teams_parse(text: str, *, name: str = "teams file") -> dict[str, str]:
    """Read ``run tag, team`` rows (tabs or spaces; a header ``run team`` allowed): which team
    each run is, so Lexical Overlap leaves a team's own answers out of its references."""
    found: dict[str, str] = {}
    problems: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if number == 1 and [f.lower() for f in fields[:2]] == ["run", "team"]:
            continue
        if len(fields) != 2:
            problems.append((number, f"expected 2 columns (run tag, team), found {len(fields)}"))
        elif found.get(fields[0], fields[1]) != fields[1]:
            problems.append((number, f"run {fields[0]} is already team {found[fields[0]]}'s"))
        else:
            found[fields[0]] = fields[1]
        if len(problems) >= MAX_PROBLEMS:
            break
    if problems:
        raise AnswerMapError(name, problems)
    return found


def run_teams_read(path: str | Path) -> dict[str, str]:
    path = Path(path)
    return run_teams_parse(path.read_text(encoding="utf-8"), name=path.name)
