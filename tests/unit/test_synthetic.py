"""The synthetic collection generator (demo/synthetic/): deterministic, importable, realistic.

The files are read back with the importers' own pure parsers (collection/core/formats), so a format
drift between generator and importer fails here, without a database.
"""

import hashlib
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from statistics import mean

import pytest

from collection.core.formats.formula_index import FORMULA_COLUMNS, parse_formula_index
from collection.core.formats.stackexchange import parse_comments, parse_posts
from collection.core.formats.topics import parse_topic_formulas, parse_topics
from demo.synthetic import SyntheticCollection, generate, make_thread
from demo.synthetic.runs import TEAMS, answer_relevance, formula_relevance

REPO = Path(__file__).resolve().parents[2]
COLUMN = {name: index for index, name in enumerate(FORMULA_COLUMNS)}
SPAN = re.compile(r'<span class="math-container" id="([^"]+)">')


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> SyntheticCollection:
    return generate(tmp_path_factory.mktemp("synthetic"), seed=7, threads=120, topics=6)


def _digest(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def test_same_seed_gives_identical_files_when_generated_twice(tmp_path: Path) -> None:
    generate(tmp_path / "one", seed=3, threads=40, topics=3)
    generate(tmp_path / "two", seed=3, threads=40, topics=3)
    generate(tmp_path / "other", seed=4, threads=40, topics=3)
    assert _digest(tmp_path / "one") == _digest(tmp_path / "two")
    assert _digest(tmp_path / "one") != _digest(tmp_path / "other")


def test_a_thread_is_rebuilt_identically_when_made_alone() -> None:
    assert make_thread(5, 37) == make_thread(5, 37)
    assert make_thread(5, 37) != make_thread(6, 37)


def test_posts_and_comments_parse_with_the_importer_when_written(
    synthetic: SyntheticCollection,
) -> None:
    posts = list(parse_posts(synthetic.posts))
    questions = {p.id for p in posts if p.kind == 1}
    answers = [p for p in posts if p.kind == 2]
    assert len(questions) == synthetic.counts.threads == 120
    assert len(posts) == synthetic.counts.posts
    assert all(a.thread_id in questions for a in answers)
    assert len(answers) >= 2 * len(questions)  # several answers per question on average
    assert all(p.tags for p in posts if p.kind == 1)
    assert len({p.score for p in posts}) > 5
    comments = list(parse_comments(synthetic.comments))
    assert len(comments) == synthetic.counts.comments > 0
    post_ids = {p.id for p in posts}
    assert all(c.post_id in post_ids for c in comments)


def test_every_formula_span_is_a_row_of_the_index_when_written(
    synthetic: SyntheticCollection,
) -> None:
    rows = list(parse_formula_index(synthetic.formulas))
    assert len(rows) == synthetic.counts.formulas
    by_post: dict[object, set[object]] = defaultdict(set)
    for row in rows:
        formula_id, post_id = row[COLUMN["formula_id"]], row[COLUMN["post_id"]]
        location, comment_id = row[COLUMN["location"]], row[COLUMN["comment_id"]]
        if location in ("question", "answer", "title"):
            by_post[post_id].add(formula_id)
        else:
            assert location == "comment"
            assert comment_id is not None
    for post in parse_posts(synthetic.posts):
        in_html = {int(i) for i in SPAN.findall(post.body + post.title)}
        assert in_html == by_post[post.id]


def test_visual_ids_group_instances_across_threads_when_formulas_recur(
    synthetic: SyntheticCollection,
) -> None:
    rows = list(parse_formula_index(synthetic.formulas))
    threads_of: dict[object, set[object]] = defaultdict(set)
    spellings: dict[object, set[object]] = defaultdict(set)
    for row in rows:
        visual_id = row[COLUMN["visual_id"]]
        threads_of[visual_id].add(row[COLUMN["thread_id"]])
        spellings[visual_id].add(row[COLUMN["latex"]])
    sizes = Counter(len(threads) for threads in threads_of.values())
    assert sum(count for size, count in sizes.items() if size >= 5) >= 10
    assert any(len(latexes) > 1 for latexes in spellings.values())  # spacing variants, one id


def test_topics_parse_in_both_arqmath_forms_when_written(synthetic: SyntheticCollection) -> None:
    answer_topics = list(parse_topics(synthetic.answer_topics))
    formula_topics = list(parse_topics(synthetic.formula_topics))
    assert [t.number for t in answer_topics] == [f"A.{n}" for n in range(1, 7)]
    assert [t.number for t in formula_topics] == [f"B.{n}" for n in range(1, 7)]
    for topic in formula_topics:
        assert topic.formula_id.startswith("q_")
        assert f'id="{topic.formula_id}"' in topic.question
        assert topic.latex
    listed = {
        (row.topic, row.formula_id) for row in parse_topic_formulas(synthetic.topic_formulas_latex)
    }
    for topic in answer_topics:
        for formula_id in SPAN.findall(topic.title + topic.question):
            assert (topic.number, formula_id) in listed


def _run_rows(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text().splitlines()]


def test_runs_rank_collection_items_of_every_team_when_written(
    synthetic: SyntheticCollection,
) -> None:
    answers = {p.id for p in parse_posts(synthetic.posts) if p.kind == 2}
    formula_post = {
        row[COLUMN["formula_id"]]: row[COLUMN["post_id"]]
        for row in parse_formula_index(synthetic.formulas)
    }
    assert {(r.team, r.task_kind) for r in synthetic.runs} == {
        (s.team, kind) for s in TEAMS for kind in ("answer", "formula")
    }
    assert any(r.baseline for r in synthetic.runs)
    assert {r.role for r in synthetic.runs} == {"primary", "alternate"}
    for run in synthetic.runs:
        rows = _run_rows(run.path)
        assert len(rows) == run.rows > 0
        per_topic = Counter(row[0] for row in rows)
        assert max(per_topic.values()) <= 100
        for row in rows:
            if run.task_kind == "answer":
                assert len(row) == 5
                assert int(row[1]) in answers
            else:
                assert len(row) == 6
                assert formula_post[int(row[1])] == int(row[2])


def test_better_systems_rank_relevant_answers_higher_when_runs_are_written(
    synthetic: SyntheticCollection,
) -> None:
    topics = {f"A.{t.number}": t for t in synthetic.topics}
    posts = {}
    for index in range(120):
        thread = make_thread(7, index)
        posts.update({a.id: (thread, a) for a in thread.answers})

    def precision_at_10(tag: str) -> float:
        run = next(r for r in synthetic.runs if r.tag == tag and r.task_kind == "answer")
        top: dict[str, list[float]] = defaultdict(list)
        for topic, post, rank, *_ in _run_rows(run.path):
            if int(rank) <= 10:
                thread, answer = posts[int(post)]
                rel = answer_relevance(topics[topic], thread, answer.shapes, answer.quality)
                top[topic].append(rel)
        return mean(mean(values) for values in top.values())

    assert precision_at_10("lemma-fusion") > precision_at_10("baseline-bm25")
    assert precision_at_10("lemma-fusion") > precision_at_10("proofsearch-tfidf")


def test_formula_runs_put_the_query_formula_near_the_top_when_the_system_is_good(
    synthetic: SyntheticCollection,
) -> None:
    visual = {
        row[COLUMN["formula_id"]]: row[COLUMN["visual_id"]]
        for row in parse_formula_index(synthetic.formulas)
    }
    topics = {f"B.{t.number}": t for t in synthetic.topics}
    run = next(r for r in synthetic.runs if r.tag == "lemma-fusion" and r.task_kind == "formula")
    top = [row for row in _run_rows(run.path) if int(row[3]) <= 5]
    relevances = [formula_relevance(topics[row[0]], int(str(visual[int(row[1])]))) for row in top]
    assert mean(relevances) >= 1.5


@pytest.mark.parametrize("module", ["demo.synthetic", "collection.core.post_html"])
def test_pure_module_imports_without_django_when_loaded_alone(module: str) -> None:
    code = (
        f"import sys; import {module}; "
        "sys.exit(1 if any(m.partition('.')[0] == 'django' for m in sys.modules) else 0)"
    )
    result = subprocess.run(  # noqa: S603
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, f"{module} pulls in Django: {result.stderr}"
