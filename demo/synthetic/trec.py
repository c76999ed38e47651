"""A synthetic TREC-style campaign written to a folder (plain Python, seeded).

``generate_trec(folder, seed=...)`` writes what a TREC track hands its organizers::

    folder/documents/qsn-news.sgml[.gz]  the collection, TREC SGML (<DOC><DOCNO>...)
    folder/topics/topics.txt             TREC topics (<top> <num> <title> <desc> <narr>)
    folder/runs/<tag>.run                TREC 6-column runs (qid Q0 docno rank score tag)
    folder/judges/llm-demo.jsonl         a machine judge: topic, docno, grade, rationale
    folder/judges/llm-demo.qrels         the same grades as qrels
    folder/truth.qrels                   the generator's true grades (0 where not listed)

Grades are 0 (not relevant), 1 (relevant) and 2 (highly relevant). The collection is news
(``demo.synthetic.news``); topic 401 asks about the first subject, 402 the second, and so on.
Every size can be tiny for tests. The same seed and sizes give byte-identical files.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from demo.synthetic.news import NewsDocument, make_document
from demo.synthetic.news_vocabulary import SUBJECTS, Subject
from demo.synthetic.trec_runs import JudgeLine, RankedRow, judge_lines, rank_topic, systems_of

__all__ = [
    "FIRST_TOPIC",
    "TrecCampaignFiles",
    "TrecRunFile",
    "generate_trec",
    "read_qrels",
    "topic_number",
]

FIRST_TOPIC = 401
JUDGE_NAME = "llm-demo"


@dataclass(frozen=True)
class TrecRunFile:
    team: str
    tag: str
    role: str  # primary | alternate
    quality: float
    path: Path
    rows: int


@dataclass(frozen=True)
class TrecCampaignFiles:
    documents: Path
    topics: Path
    runs: tuple[TrecRunFile, ...]
    judge_jsonl: Path
    judge_qrels: Path
    truth: Path
    document_count: int
    html_documents: int
    topic_numbers: tuple[str, ...]


def topic_number(subject: int) -> str:
    return str(FIRST_TOPIC + subject)


def generate_trec(
    folder: Path,
    *,
    seed: int = 0,
    documents: int = 400,
    topics: int = 8,
    teams: int = 3,
    depth: int = 100,
    judge_depth: int = 20,
    gzip_documents: bool = False,
) -> TrecCampaignFiles:
    """Write a TREC-style campaign under ``folder`` (see the module docstring): ``documents``
    articles, ``topics`` topics (at most one per subject), the runs of the first ``teams``
    teams (each run's top ``depth`` per topic) and the machine judge's grades of every
    document some run ranks in its top ``judge_depth``."""
    if not 1 <= topics <= len(SUBJECTS):
        raise ValueError(f"topics must be 1 to {len(SUBJECTS)}, not {topics}")
    if documents < 1 or depth < 1 or judge_depth < 1:
        raise ValueError("documents, depth and judge_depth must be positive")
    systems = systems_of(teams)
    articles = [make_document(seed, index, topics=topics) for index in range(documents)]
    suffix = ".sgml.gz" if gzip_documents else ".sgml"
    documents_path = folder / "documents" / f"qsn-news{suffix}"
    with _text_file(documents_path, gzipped=gzip_documents) as out:
        out.writelines(_sgml(article) for article in articles)
    topics_path = folder / "topics" / "topics.txt"
    with _text_file(topics_path) as out:
        out.writelines(_topic(subject, SUBJECTS[subject]) for subject in range(topics))
    runs: list[TrecRunFile] = []
    pooled: dict[int, dict[str, NewsDocument]] = {s: {} for s in range(topics)}
    by_docno = {article.docno: article for article in articles}
    for system in systems:
        path = folder / "runs" / f"{system.tag}.run"
        rows = 0
        with _text_file(path) as out:
            for subject in range(topics):
                if system.skips_last_topic and topics > 1 and subject == topics - 1:
                    continue
                ranked = rank_topic(system, subject, articles, seed=seed, depth=depth)
                out.writelines(_run_line(subject, row, system.tag) for row in ranked)
                rows += len(ranked)
                for row in ranked[:judge_depth]:
                    pooled[subject].setdefault(row.docno, by_docno[row.docno])
        runs.append(TrecRunFile(system.team, system.tag, system.role, system.quality, path, rows))
    numbers = {subject: topic_number(subject) for subject in range(topics)}
    judged = judge_lines(
        {s: sorted(docs.values(), key=lambda d: d.docno) for s, docs in pooled.items()},
        numbers,
        seed=seed,
    )
    judges = folder / "judges"
    _write_judge(judges / f"{JUDGE_NAME}.jsonl", judges / f"{JUDGE_NAME}.qrels", judged)
    truth = folder / "truth.qrels"
    with _text_file(truth) as out:
        out.writelines(_truth_lines(articles, numbers))
    return TrecCampaignFiles(
        documents=documents_path,
        topics=topics_path,
        runs=tuple(runs),
        judge_jsonl=judges / f"{JUDGE_NAME}.jsonl",
        judge_qrels=judges / f"{JUDGE_NAME}.qrels",
        truth=truth,
        document_count=len(articles),
        html_documents=sum(article.is_html for article in articles),
        topic_numbers=tuple(numbers.values()),
    )


def read_qrels(path: Path) -> dict[tuple[str, str], int]:
    """(topic, docno) -> grade of a qrels file this module wrote."""
    grades = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        topic, _iteration, docno, grade = line.split()
        grades[(topic, docno)] = int(grade)
    return grades


@contextmanager
def _text_file(path: Path, *, gzipped: bool = False) -> Iterator[TextIO]:
    """A UTF-8 file with LF line ends; gzipped without a name or time in the header, so the
    same content gives the same bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as raw:
        if not gzipped:
            with io.TextIOWrapper(raw, encoding="utf-8", newline="\n") as text:
                yield text
            return
        with (
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as packed,
            io.TextIOWrapper(packed, encoding="utf-8", newline="\n") as text,
        ):
            yield text


def _sgml(article: NewsDocument) -> str:
    return (
        f"<DOC>\n<DOCNO>{article.docno}</DOCNO>\n<DATE>{article.day.isoformat()}</DATE>\n"
        f"<BYLINE>{article.byline}</BYLINE>\n<HEADLINE>{article.headline}</HEADLINE>\n"
        f"<TEXT>\n{article.body}\n</TEXT>\n</DOC>\n"
    )


def _topic(subject: int, about: Subject) -> str:
    narrative = (
        f"A highly relevant document is mainly about {about.about}. A document that discusses "
        f"{about.mention} in at least one paragraph is relevant. Documents that mention "
        f"{about.mention} only in passing, or are about something else, are not relevant."
    )
    return (
        f"<top>\n<num> Number: {topic_number(subject)}\n<title> {about.query}\n\n"
        f"<desc> Description:\n{about.description}\n\n<narr> Narrative:\n{narrative}\n</top>\n\n"
    )


def _run_line(subject: int, row: RankedRow, tag: str) -> str:
    return f"{topic_number(subject)} Q0 {row.docno} {row.rank} {row.score:.4f} {tag}\n"


def _write_judge(jsonl: Path, qrels: Path, lines: Iterable[JudgeLine]) -> None:
    with _text_file(jsonl) as as_json, _text_file(qrels) as as_qrels:
        for line in lines:
            record = {
                "topic": line.topic,
                "docno": line.docno,
                "grade": line.grade,
                "rationale": line.rationale,
            }
            as_json.write(json.dumps(record) + "\n")
            as_qrels.write(f"{line.topic} 0 {line.docno} {line.grade}\n")


def _truth_lines(articles: Iterable[NewsDocument], numbers: dict[int, str]) -> Iterator[str]:
    found = sorted(
        (numbers[subject], article.docno, grade)
        for article in articles
        for subject, grade in article.grades.items()
        if subject in numbers
    )
    for topic, docno, grade in found:
        yield f"{topic} 0 {docno} {grade}\n"
