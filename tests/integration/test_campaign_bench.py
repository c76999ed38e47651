"""bench/campaign.py --small runs every phase of the campaign rehearsal, and what it leaves agrees.

The benchmark runs as a subprocess on its own scratch database, kept for this test
(``--keep-db``) and dropped afterwards. Besides its printout (every phase, the qrels equal to
the judgments it submitted), the database is read here directly with SQL: every pool hit has
exactly one official judgment, each task's qrels rows are the graded official judgments of the
topics the qrels kept (Task 1: one per answer post; Task 2: one per visual id with a graded
instance), and every uploaded run has a result against its task's qrels.
"""

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg2
import pytest

REPO = Path(__file__).resolve().parents[2]
PHASES = (
    "generate files",
    "import posts",
    "import comments",
    "import formulas",
    "import SLT",
    "import topics",
    "upload runs",
    "pools answer",
    "pools formula",
    "pools openqa",
    "assignments",
    "judging",
    "agreement",
    "qrels export",
    "evaluation",
)


def _url(name: str) -> str:
    url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/qrelsmith")
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


def _drop(name: str) -> None:
    admin = psycopg2.connect(_url("postgres"))
    admin.autocommit = True
    with admin.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.close()


@pytest.fixture(scope="module")
def rehearsal() -> Iterator[tuple[str, str]]:
    """(the benchmark's printout, its database name), the database dropped afterwards."""
    base = urlsplit(os.environ.get("DATABASE_URL", "postgres:///qrelsmith")).path.lstrip("/")
    name = f"{base}_campaign_test"
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    try:
        done = subprocess.run(  # noqa: S603 - this interpreter, this repository's script
            [sys.executable, "bench/campaign.py", "--small", "--keep-db", "--database", name],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        yield done.stdout, name
    finally:
        _drop(name)


def _rows(name: str, sql: str, params: tuple = ()) -> list[tuple]:
    connection = psycopg2.connect(_url(name))
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()
    finally:
        connection.close()


def test_every_phase_prints_its_figures(rehearsal: tuple[str, str]) -> None:
    output, _ = rehearsal
    for phase in PHASES:
        line = re.search(rf"^phase {re.escape(phase)} +([\d.]+) s +([\d,]+) ", output, re.M)
        assert line, f"phase {phase!r} missing:\n{output}"
        assert float(line[1]) >= 0, line[0]
        assert int(line[2].replace(",", "")) > 0, line[0]
    assert output.count("earlier: ") == len(PHASES)
    assert len(re.findall(r"CPU: bench process [\d.]+ s, PostgreSQL backends", output)) == len(
        PHASES
    )
    assert re.search(r"whole rehearsal .* = [\d.]+ min \(goal < 25 min: (met|MISSED)\)", output)
    assert re.search(r"peak RSS per process: bench process [\d,]+ MB", output)
    assert re.search(r"database size at the end: [\d,]+ MB", output)
    assert "PROBLEM" not in output
    assert output.count("equal to the judgments submitted: yes") == 3
    assert output.rstrip().endswith("campaign rehearsal: every phase done")


def test_every_hit_has_one_official_judgment(rehearsal: tuple[str, str]) -> None:
    _, name = rehearsal
    [(hits, judged, twice)] = _rows(
        name,
        """SELECT (SELECT count(*) FROM pooling_hit),
                  count(DISTINCT j.hit_id),
                  count(*) - count(DISTINCT j.hit_id)
           FROM assessment_judgment j JOIN assessment_assignment a ON a.id = j.assignment_id
           WHERE a.purpose = 'official'""",
    )
    assert hits > 0
    assert (judged, twice) == (hits, 0)
    [(dual,)] = _rows(
        name,
        """SELECT count(*) FROM assessment_judgment j
           JOIN assessment_assignment a ON a.id = j.assignment_id WHERE a.purpose = 'dual'""",
    )
    assert 0 < dual < hits


def _qrels(name: str, kind: str) -> tuple[int, set[str], list[str]]:
    [(rows, content)] = _rows(
        name,
        """SELECT q.row_count, q.content FROM evaluation_qrelsversion q
           JOIN collection_retrievaltask t ON t.id = q.task_id
           WHERE t.kind = %s AND q.level = 'item'""",
        (kind,),
    )
    lines = content.splitlines()
    return rows, {line.split("\t")[0] for line in lines}, lines


@pytest.mark.parametrize("kind", ["answer", "formula"])
def test_qrels_rows_are_the_graded_official_judgments(
    rehearsal: tuple[str, str], kind: str
) -> None:
    """Task 1 has a row per graded answer post, Task 2 per visual id (pool item) with a graded
    instance, in the topics the qrels kept."""
    _, name = rehearsal
    rows, topics, lines = _qrels(name, kind)
    assert rows == len(lines) > 0
    [(posts, items)] = _rows(
        name,
        """SELECT count(DISTINCT j.hit_id), count(DISTINCT i.id) FROM assessment_judgment j
           JOIN assessment_assignment a ON a.id = j.assignment_id
           JOIN pooling_hit h ON h.id = j.hit_id JOIN pooling_poolitem i ON i.id = h.item_id
           JOIN collection_topic t ON t.id = i.topic_id
           JOIN collection_retrievaltask k ON k.id = t.task_id
           WHERE a.purpose = 'official' AND j.grade IS NOT NULL AND k.kind = %s
             AND i.key NOT LIKE 'qa-%%' AND t.number = ANY(%s)""",
        (kind, sorted(topics)),
    )
    assert rows == (posts if kind == "answer" else items)


def test_every_run_is_scored(rehearsal: tuple[str, str]) -> None:
    _, name = rehearsal
    found = _rows(
        name,
        """SELECT k.kind, count(DISTINCT r.id), count(DISTINCT e.run_id)
           FROM pooling_run r JOIN collection_retrievaltask k ON k.id = r.task_id
           LEFT JOIN evaluation_evaluationresult e ON e.run_id = r.id GROUP BY k.kind""",
    )
    assert {kind for kind, *_ in found} == {"answer", "formula", "openqa"}
    for kind, runs, scored in found:
        assert runs == scored > 0, kind
