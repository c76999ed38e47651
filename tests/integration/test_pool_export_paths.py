"""The pool exports and figures read the whole task at once and still say exactly
what a topic-by-topic reading of the stored pool says, on PostgreSQL and on the demo's SQLite.

The pool spans several topics, has runs that tie on a rank (ordered by team, then tag), a team
name and a tag a spreadsheet would run, two runs of one team, formula items with several hits,
an orphaned item no run contributes any more, and a topic with no pool.
"""

import json
from collections import defaultdict
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from collection.models import RetrievalTask, Topic
from kernel.core.spreadsheet import safe_cell
from pooling.models import Contribution, Hit, PoolBuild, PoolItem, Run
from pooling.selectors.pool_export import pool_export_lines
from pooling.selectors.pools import pool_stats
from pooling.services.pools import pool_build
from tests.factories.collection import CampaignFactory, RetrievalTaskFactory, UserFactory
from tests.factories.pooling import HitFactory, PoolItemFactory, RunFactory, TeamFactory
from tests.integration.pool_data import (
    formula_collection,
    load_answer_rows,
    load_formula_rows,
    make_run,
    make_topics,
)
from tests.integration.sqlite_manage import manage_sqlite

CAMPAIGN = "Export-Camp"


def build_export_pool(kind: str) -> RetrievalTask:
    """The pool described above, the same on any database (no ids in what it exports)."""
    task = RetrievalTaskFactory.create(
        campaign=CampaignFactory.create(name=CAMPAIGN),
        kind=kind,
        **({"primary_k": 4, "alternate_k": 2, "max_instances": 3} if kind == "formula" else {}),
    )
    if kind == "formula":
        formula_collection(formulas=120, visual_ids=9)
    topics = make_topics(task, 4, prefix="B" if kind == "formula" else "A")
    hostile = TeamFactory.create(name="=HYPERLINK(1)")
    runs = [
        make_run(task, "r1"),
        make_run(task, "r2", "alternate"),
        RunFactory.create(task=task, team=hostile, tag="-x"),
        RunFactory.create(task=task, team=hostile, tag="@y", role="alternate"),
    ]
    load = load_formula_rows if kind == "formula" else load_answer_rows
    for n, run in enumerate(runs):
        # Rank 1 is item 1 for every run on each topic: four runs tie there.
        ranked = [1 + i * (n + 1 + j) % 40 for j in range(3) for i in range(12)]
        load(run, {t.pk: ranked[12 * j : 12 * j + 12] for j, t in enumerate(topics[:3])})
    pool_build(task=task)
    orphan = PoolItemFactory.create(
        topic=topics[0], post_id=3, key="zz-orphan", display_order=999, is_orphaned=True
    )
    HitFactory.create(item=orphan, post_id=3)
    return task


def _cells(values: tuple[object, ...]) -> str:
    return "\t".join("" if value is None else str(safe_cell(value)) for value in values) + "\n"


def topic_by_topic_export(task: RetrievalTask, kind: str) -> str:
    """Oracle: the export read one topic at a time straight from the stored rows, as it was
    before exports were streamed."""
    labels = {run.pk: (run.team.name, run.tag) for run in Run.objects.select_related("team")}
    hits_header = ("topic", "key", "post_id", "formula_id", "display_order", "vote", "runs")
    out = [_cells(hits_header if kind == "hits" else ("topic", "key", "team", "run", "rank"))]
    for topic in Topic.objects.filter(task=task).order_by("id"):
        runs: dict[int, list[tuple[int, str, str]]] = defaultdict(list)
        for item_id, run_id, rank in Contribution.objects.filter(item__topic=topic).values_list(
            "item_id", "run_id", "rank"
        ):
            runs[item_id].append((rank, *labels[run_id]))
        if kind == "annotated":
            for item in PoolItem.objects.filter(topic=topic).order_by("key"):
                for rank, team, tag in sorted(runs[item.pk]):
                    out.append(_cells((topic.number, item.key, team, tag, rank)))
            continue
        hits = Hit.objects.filter(item__topic=topic).select_related("item")
        for hit in hits.order_by("item__display_order", "position", "id"):
            cell = ",".join(f"{team}/{tag}:{rank}" for rank, team, tag in sorted(runs[hit.item_id]))
            row = (topic.number, hit.item.key, hit.post_id, hit.formula_id)
            out.append(_cells((*row, hit.item.display_order, f"{hit.vote:.6f}", cell)))
    return "".join(out)


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["answer", "formula"])
@pytest.mark.parametrize("export", ["hits", "annotated"])
def test_export_matches_a_topic_by_topic_reading_when_the_pool_spans_topics(
    kind: str, export: str
) -> None:
    task = build_export_pool(kind)

    text = "".join(pool_export_lines(task, export))

    assert text == topic_by_topic_export(task, export)
    topics = {line.split("\t")[0] for line in text.splitlines()[1:]}
    prefix = "B" if kind == "formula" else "A"
    assert topics == {f"{prefix}.{n}" for n in (1, 2, 3)}  # the fourth has no pool
    assert "'=HYPERLINK(1)" in text


@pytest.mark.django_db
@pytest.mark.parametrize("built", [True, False], ids=["cacheable", "build-under-way"])
def test_download_arrives_in_one_piece_not_a_write_per_line_when_the_export_is_small(
    built: bool,
) -> None:
    task = build_export_pool("answer")
    if not built:  # nothing is cached while a build runs: the lines are read fresh
        PoolBuild.objects.create(task=task, status=PoolBuild.Status.RUNNING)
    client = Client()
    client.force_login(UserFactory.create(is_staff=True))

    response = client.get(f"/pools/{task.pk}/export/hits.tsv")
    pieces = list(response.streaming_content)  # type: ignore[attr-defined]

    assert len(pieces) == 1  # under 64K characters: one write to the socket
    assert b"".join(pieces).decode() == "".join(pool_export_lines(task, "hits"))


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["answer", "formula"])
def test_figures_match_counts_taken_item_by_item_when_runs_and_teams_share_items(
    kind: str,
) -> None:
    task = build_export_pool(kind)
    by_item: dict[int, set[int]] = defaultdict(set)
    for item_id, run_id in Contribution.objects.values_list("item_id", "run_id"):
        by_item[item_id].add(run_id)
    team_of = dict(Run.objects.values_list("id", "team__name"))

    stats = pool_stats(task)

    for run in stats.runs:
        mine = [runs for runs in by_item.values() if run.run_id in runs]
        assert (run.pooled, run.unique) == (len(mine), sum(len(r) == 1 for r in mine))
    shared = {(o["run_a"], o["run_b"]): o["shared"] for o in stats.overlap}
    for a, b in combinations(sorted(team_of), 2):
        assert shared.get((a, b), 0) == sum({a, b} <= runs for runs in by_item.values())
    alone: dict[str, int] = defaultdict(int)
    for runs in by_item.values():
        if len({team_of[r] for r in runs}) == 1:
            alone[team_of[next(iter(runs))]] += 1
    assert {row["team"]: row["unique"] for row in stats.teams} == alone
    assert alone["=HYPERLINK(1)"] > 0
    assert len(shared) > 3


def figures_by_label(task: RetrievalTask) -> dict[str, Any]:
    """pool_stats' run, team and overlap figures keyed by team/tag (ids differ between
    databases)."""
    stats = pool_stats(task)
    label = {run.run_id: run.label for run in stats.runs}
    return {
        "runs": [
            (r.label, r.pooled, r.unique, r.depth_min, r.depth_median, r.depth_max)
            for r in stats.runs
        ],
        "teams": stats.teams,
        "overlap": sorted(
            [label[o["run_a"]], label[o["run_b"]], o["shared"]] for o in stats.overlap
        ),
    }


@pytest.fixture(scope="module")
def sqlite_pool(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite database, as ``make demo`` makes, holding build_export_pool("formula")."""
    database = tmp_path_factory.mktemp("sqlite") / "demo.sqlite3"
    manage_sqlite(database, "migrate", "--noinput")
    build = f"from {__name__} import build_export_pool; build_export_pool('formula')"
    manage_sqlite(database, "shell", "-c", build)
    return database


@pytest.mark.django_db
@pytest.mark.parametrize("export", ["hits", "annotated"])
def test_sqlite_export_has_the_same_bytes_as_postgresql_when_the_pool_is_the_same(
    sqlite_pool: Path, export: str
) -> None:
    task = build_export_pool("formula")

    on_sqlite = manage_sqlite(
        sqlite_pool, "export_pool", "--campaign", CAMPAIGN, "--task", "formula", "--out", "-",
        "--kind", export,
    )  # fmt: skip

    assert on_sqlite == "".join(pool_export_lines(task, export))


@pytest.mark.django_db
def test_sqlite_figures_equal_postgresql_figures_when_the_pool_is_the_same(
    sqlite_pool: Path,
) -> None:
    task = build_export_pool("formula")
    read = (
        "import json; from collection.models import RetrievalTask; "
        f"from {__name__} import figures_by_label; "
        "print(json.dumps(figures_by_label(RetrievalTask.objects.get(kind='formula'))))"
    )

    on_sqlite = json.loads(manage_sqlite(sqlite_pool, "shell", "-c", read).splitlines()[-1])

    assert on_sqlite == json.loads(json.dumps(figures_by_label(task)))
