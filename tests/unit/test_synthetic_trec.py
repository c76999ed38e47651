"""The TREC-style generator (demo/synthetic/trec.py): deterministic, its files well formed,
its topics answered by documents about them, its runs of differing quality.

The files are read back here with small independent readers (regular expressions and
``split``), not with the importers, so a format slip shows up whoever parses it.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from statistics import mean
from typing import Any

import pytest
import pytrec_eval

from demo.synthetic.trec import TrecCampaignFiles, generate_trec

REPO = Path(__file__).resolve().parents[2]
DOC = re.compile(r"<DOC>\n(.*?)\n</DOC>\n", re.DOTALL)
FIELD = re.compile(r"<(DOCNO|DATE|BYLINE|HEADLINE|TEXT)>\n?(.*?)\n?</\1>", re.DOTALL)
TOP = re.compile(
    r"<top>\n<num> Number: (\d+)\n<title> (.+?)\n\n<desc> Description:\n(.+?)\n\n"
    r"<narr> Narrative:\n(.+?)\n</top>\n",
    re.DOTALL,
)
WORD = re.compile(r"[a-z0-9]+")


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> TrecCampaignFiles:
    return generate_trec(tmp_path_factory.mktemp("trec"), seed=11, documents=240, topics=6)


def _digest(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def _documents(text: str) -> dict[str, dict[str, str]]:
    documents = {}
    for block in DOC.findall(text):
        fields = dict(FIELD.findall(block))
        assert fields["DOCNO"] not in documents, fields["DOCNO"]
        documents[fields["DOCNO"]] = fields
    return documents


def _topics(path: Path) -> dict[str, dict[str, str]]:
    text = path.read_text(encoding="utf-8")
    found = TOP.findall(text)
    assert len(found) == text.count("<top>")
    return {n: {"title": t, "desc": d, "narr": r} for n, t, d, r in found}


def _qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for line in path.read_text(encoding="utf-8").splitlines():
        topic, iteration, docno, grade = line.split()
        assert iteration == "0"
        qrels[topic][docno] = int(grade)
    return dict(qrels)


def _run(path: Path) -> list[tuple[str, str, str, int, float, str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        topic, q0, docno, rank, score, tag = line.split(" ")
        rows.append((topic, q0, docno, int(rank), float(score), tag))
    return rows


def test_generator_writes_identical_files_when_run_twice_with_one_seed(tmp_path: Path) -> None:
    sizes: dict[str, Any] = {"documents": 60, "topics": 3, "depth": 20}
    generate_trec(tmp_path / "a", seed=5, **sizes)
    generate_trec(tmp_path / "b", seed=5, **sizes)
    generate_trec(tmp_path / "c", seed=6, **sizes)
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b")
    other = _digest(tmp_path / "c")
    assert other.keys() == _digest(tmp_path / "a").keys()
    assert other["documents/qsn-news.sgml"] != _digest(tmp_path / "a")["documents/qsn-news.sgml"]


def test_gzipped_collection_holds_the_plain_file_byte_for_byte_when_asked(tmp_path: Path) -> None:
    plain = generate_trec(tmp_path / "plain", seed=2, documents=30, topics=2, depth=10)
    packed = generate_trec(
        tmp_path / "gz", seed=2, documents=30, topics=2, depth=10, gzip_documents=True
    )
    again = generate_trec(
        tmp_path / "gz2", seed=2, documents=30, topics=2, depth=10, gzip_documents=True
    )
    assert packed.documents.name == "qsn-news.sgml.gz"
    assert gzip.decompress(packed.documents.read_bytes()) == plain.documents.read_bytes()
    assert packed.documents.read_bytes() == again.documents.read_bytes()


def test_collection_is_trec_sgml_with_news_fields_when_parsed(campaign: TrecCampaignFiles) -> None:
    text = campaign.documents.read_text(encoding="utf-8")
    documents = _documents(text)
    assert len(documents) == text.count("<DOC>") == campaign.document_count == 240
    assert list(documents)[:2] == ["QSN-2026-000001", "QSN-2026-000002"]
    html = {d for d, f in documents.items() if "<p>" in f["TEXT"]}
    assert len(html) == campaign.html_documents >= 5
    for docno, fields in documents.items():
        assert re.fullmatch(r"QSN-2026-\d{6}", docno)
        assert re.fullmatch(r"2026-\d\d-\d\d", fields["DATE"])
        assert fields["BYLINE"].startswith("By ")
        assert fields["HEADLINE"].strip()
        body = fields["TEXT"]
        if docno in html:
            assert "<script>" in body  # for the sanitizer to remove
            continue
        # Plain text: paragraphs separated by blank lines, nothing to unescape.
        assert len(body.split("\n\n")) >= 2, docno
        assert "<" not in body
        assert "&" not in body


def test_topics_have_title_description_and_narrative_when_parsed(
    campaign: TrecCampaignFiles,
) -> None:
    topics = _topics(campaign.topics)
    assert list(topics) == ["401", "402", "403", "404", "405", "406"]
    assert tuple(topics) == campaign.topic_numbers
    for topic in topics.values():
        assert topic["desc"].endswith("?")
        assert "relevant" in topic["narr"]
        assert "not relevant" in topic["narr"]


def test_relevant_documents_contain_the_query_words_when_checked_against_truth(
    campaign: TrecCampaignFiles,
) -> None:
    documents = _documents(campaign.documents.read_text(encoding="utf-8"))
    topics = _topics(campaign.topics)
    truth = _qrels(campaign.truth)
    assert set(truth) == set(topics)
    for number, grades in truth.items():
        query = set(WORD.findall(topics[number]["title"].lower()))
        assert sum(g == 2 for g in grades.values()) >= 3, number
        assert sum(g == 1 for g in grades.values()) >= 3, number
        for docno, grade in grades.items():
            words = set(WORD.findall(f"{documents[docno]['HEADLINE']} {documents[docno]['TEXT']}"))
            assert len(query & words) >= grade, (number, docno)


def test_runs_are_trec_six_columns_ranked_by_score_when_parsed(
    campaign: TrecCampaignFiles,
) -> None:
    docnos = set(_documents(campaign.documents.read_text(encoding="utf-8")))
    topics = set(campaign.topic_numbers)
    teams: dict[str, list[str]] = defaultdict(list)
    tied_runs, short_runs = 0, 0
    for run in campaign.runs:
        teams[run.team].append(run.role)
        rows = _run(run.path)
        assert len(rows) == run.rows
        by_topic = defaultdict(list)
        for topic, q0, docno, rank, score, tag in rows:
            assert (q0, tag) == ("Q0", run.tag)
            assert docno in docnos
            by_topic[topic].append((rank, score, docno))
        assert set(by_topic) <= topics
        short_runs += set(by_topic) != topics
        for ranked in by_topic.values():
            assert [r for r, _, _ in ranked] == list(range(1, 101))
            scores = [s for _, s, _ in ranked]
            assert scores == sorted(scores, reverse=True)
            assert len({d for _, _, d in ranked}) == len(ranked)
        tied_runs += any(len({s for _, s, _ in r}) < len(r) for r in by_topic.values())
    assert len(teams) == 3
    assert all(1 <= len(roles) <= 2 and roles[0] == "primary" for roles in teams.values())
    assert tied_runs >= 1
    assert short_runs == 1  # one run leaves its last topic out


def test_runs_differ_in_quality_when_scored_on_the_true_grades(
    campaign: TrecCampaignFiles,
) -> None:
    evaluator = pytrec_eval.RelevanceEvaluator(_qrels(campaign.truth), {"map", "ndcg_cut_10"})
    scores = {}
    for run in campaign.runs:
        ranked: dict[str, dict[str, float]] = defaultdict(dict)
        for topic, _q0, docno, _rank, score, _tag in _run(run.path):
            ranked[topic][docno] = score
        per_topic = evaluator.evaluate(ranked)
        scores[run.tag] = mean(values["map"] for values in per_topic.values())
    ordered = sorted(scores, key=scores.__getitem__)
    assert scores[ordered[-1]] - scores[ordered[0]] > 0.25, scores
    by_quality = sorted(campaign.runs, key=lambda run: run.quality)
    assert by_quality[-1].tag == ordered[-1]


def test_machine_judge_mostly_agrees_with_truth_when_read_back(
    campaign: TrecCampaignFiles,
) -> None:
    truth = _qrels(campaign.truth)
    records = [json.loads(line) for line in campaign.judge_jsonl.read_text().splitlines()]
    assert all(set(r) == {"topic", "docno", "grade", "rationale"} for r in records)
    assert all(r["grade"] in (0, 1, 2) and r["rationale"].endswith(".") for r in records)
    as_qrels = _qrels(campaign.judge_qrels)
    assert {(r["topic"], r["docno"]): r["grade"] for r in records} == {
        (t, d): g for t, grades in as_qrels.items() for d, g in grades.items()
    }
    same = sum(truth.get(r["topic"], {}).get(r["docno"], 0) == r["grade"] for r in records)
    assert 0.7 <= same / len(records) < 1.0
    top = {
        (topic, docno)
        for run in campaign.runs
        for topic, _q0, docno, rank, _score, _tag in _run(run.path)
        if rank <= 20
    }
    assert {(r["topic"], r["docno"]) for r in records} == top


def test_generator_writes_a_whole_campaign_when_sizes_are_tiny(tmp_path: Path) -> None:
    files = generate_trec(tmp_path, seed=1, documents=4, topics=1, teams=1, depth=3)
    assert len(_documents(files.documents.read_text(encoding="utf-8"))) == 4
    assert list(_topics(files.topics)) == ["401"]
    assert [run.team for run in files.runs] == ["Northwind", "Northwind"]
    assert all(len(_run(run.path)) == 3 for run in files.runs)


@pytest.mark.parametrize(
    ("sizes", "message"),
    [
        ({"topics": 0}, "topics must be 1 to 12"),
        ({"topics": 13}, "topics must be 1 to 12"),
        ({"teams": 0}, "teams must be 1 to 4"),
        ({"documents": 0}, "must be positive"),
    ],
)
def test_generator_refuses_when_sizes_are_out_of_range(
    tmp_path: Path, sizes: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        generate_trec(tmp_path, **sizes)


def test_trec_generator_imports_without_django_when_loaded_alone() -> None:
    code = (
        "import sys; import demo.synthetic.trec; "
        "sys.exit(1 if any(m.partition('.')[0] == 'django' for m in sys.modules) else 0)"
    )
    result = subprocess.run(  # noqa: S603
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
