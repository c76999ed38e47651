"""ARQMath's figures for run files: the prime measures (Tasks 1 and 2), AR and P@1 (Task 3),
and for native Task 3 runs Lexical Overlap and the MG and UI shares."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from evaluation.core.answer_questions import (
    marks_from_judgments_csv,
    question_shares,
    shares_note,
)
from evaluation.core.answers import AnswerMap, answer_map_read
from evaluation.core.lexical_overlap import DEFAULT_TOKENIZER, Bags, Reference, lexical_overlap
from evaluation.core.measures import (
    Average,
    PrimeEvaluator,
    best_ranked,
    evaluate_formula_run,
    evaluate_openqa_answers,
)
from evaluation.core.qrels import TaskKind, qrels_grades, qrels_read_path
from evaluation.core.ranking import Precision
from evaluation.core.runfiles.model import EvaluationRun, RunFileError
from evaluation.core.runfiles.reading import (
    _formula_visual_ids,
    read_answer_run,
    read_evaluation_run,
)
from kernel.core.grades import ARQMATH_RELEVANCE_LEVEL, MAX_GRADE
from pooling.core.algorithms.openqa import answer_key


def _evaluated_runs(
    run_paths: Sequence[str | Path], kind: str, answer_map: AnswerMap | None
) -> Iterator[EvaluationRun]:
    """Each run read in turn, so only one run's rows are held at a time."""
    for path in run_paths:
        if kind == "openqa":
            yield read_answer_run(path, answer_map=answer_map)
        else:
            yield read_evaluation_run(path, task_kind=kind)


def evaluate_run_files(
    qrels_path: str | Path,
    run_paths: Sequence[str | Path],
    *,
    kind: TaskKind = "answer",
    formula_index: str | Path | None = None,
    average: Average = "all",
    answer_map: str | Path | None = None,
    precision: Precision = "double",
    teams: Mapping[str, str] | None = None,
    tokenizer: str = DEFAULT_TOKENIZER,
    judgments: str | Path | None = None,
) -> list[dict[str, object]]:
    """Evaluate run files against a qrels file: one plain dict per run, in the given order.

    Runs are read, scored and dropped one at a time: memory does not grow with their number
    (native Task 3 runs keep their scored answers' texts, one per topic, for Lexical Overlap:
    ``teams`` maps run tags to teams, whose own answers are no references; a run missing from
    it is a team of its own; ``judgments``, the app's judgments CSV, gives their MG and UI)."""
    if answer_map is not None and kind != "openqa":
        raise RunFileError("--answer-map is for --task openqa (native Task 3 run files)")
    grades = qrels_grades(qrels_read_path(qrels_path, trec_eval=True), kind=kind)
    mapping = answer_map_read(answer_map) if answer_map is not None else None
    evaluator = PrimeEvaluator(grades, precision=precision) if kind != "openqa" else None
    visual_ids = _formula_visual_ids(run_paths, formula_index) if kind == "formula" else {}
    found: list[dict[str, object]] = []
    texts: dict[str, dict[str, str]] = {}  # run tag -> topic -> its scored answer's text
    for run in _evaluated_runs(run_paths, kind, mapping):
        if evaluator is None:
            answers = best_ranked(run.ranked)
            result = evaluate_openqa_answers(run.tag, answers, grades, average=average)
            if run.texts:
                texts[run.tag] = {t: run.texts[a] for t, a in answers.items() if a in run.texts}
        elif kind == "formula":
            result = evaluate_formula_run(run.tag, run.rows, evaluator, visual_ids, average=average)
        else:
            result = evaluator.evaluate(run.tag, run.scores(), average=average)
        found.append({"file": run.file, "format": run.format, **result.as_dict()})
    if texts and len(texts) == len(found):
        _add_lexical_overlap(found, texts, grades, teams or {}, tokenizer, mapping or {})
        if judgments is not None:
            _add_question_shares(found, texts, Path(judgments))
    elif judgments is not None:
        raise RunFileError("--judgments needs native Task 3 runs (their answers' texts)")
    return found


def _add_question_shares(
    found: list[dict[str, object]], texts: Mapping[str, Mapping[str, str]], path: Path
) -> None:
    """MG and UI of every native Task 3 run: its answers are found in the judgments by their
    pool item key (the digest of the text, as the app pools them)."""
    marks, asked = marks_from_judgments_csv(path.read_text(encoding="utf-8"), name=path.name)
    for row in found:
        keys = {topic: answer_key(text) for topic, text in texts[str(row["run"])].items()}
        for code, share in question_shares(keys, marks, dict(asked)).items():
            if share.value is not None:
                row[code] = share.value
            row[f"{code}_answers"] = share.answered
        notes = row.get("notes")
        if isinstance(notes, list) and asked:
            notes.append(shares_note(dict(asked)))


def _add_lexical_overlap(
    found: list[dict[str, object]],
    texts: Mapping[str, Mapping[str, str]],
    grades: Mapping[str, Mapping[str, int]],
    teams: Mapping[str, str],
    tokenizer: str,
    answer_map: Mapping[tuple[str, str], str],
) -> None:
    """LO of every native Task 3 run against the relevant (H+M) answers of the other teams'
    runs given (their texts are all the files hold; Task 1 answers need the collection)."""
    team_ids = {name: i for i, name in enumerate(sorted(set(teams.values())))}

    def team(tag: str) -> int:
        return team_ids[teams[tag]] if tag in teams else len(team_ids) + sorted(texts).index(tag)

    references: dict[str, list[Reference]] = {}
    for tag, answers in texts.items():
        for topic, text in answers.items():
            grade = grades.get(topic, {}).get(answer_map.get((tag, topic), ""))
            if grade is not None and ARQMATH_RELEVANCE_LEVEL <= grade <= MAX_GRADE:
                references.setdefault(topic, []).append(Reference(text, team=team(tag)))
    bags = Bags(tokenizer)
    for row in found:
        tag = str(row["run"])
        topics = sorted(grades) if row.get("average") == "all" else list(texts[tag])
        overlap = lexical_overlap(texts[tag], references, team=team(tag), topics=topics, bags=bags)
        row["lo"] = overlap.value
        per_topic = row.get("per_topic")
        if isinstance(per_topic, dict):
            for topic, value in overlap.per_topic.items():
                per_topic.setdefault(topic, {})["lo"] = value
        note = overlap.description
        if not teams:
            note = note.removesuffix(".") + " (no --teams file: each run is a team of its own)."
        notes = row.get("notes")
        if isinstance(notes, list):
            notes.append(note)
