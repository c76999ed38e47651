"""Two answer tasks in one campaign (two years' Task 1, say) and open QA tasks beside them:
each answer task pools its own runs, an open-QA task joins the answer task it names (its link,
else the campaign's only answer task), and one that could join either is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from collection.management.task_lookup import find_task
from collection.models import RetrievalTask
from collection.selectors import answer_task_of
from collection.services.tasks import task_for_import
from pooling.models import PoolBuild, PoolItem, RunRow
from pooling.selectors.pool_inputs import pooled_runs
from tests.factories.collection import CampaignFactory, RetrievalTaskFactory
from tests.integration.pool_data import load_answer_rows, make_run, make_topics

pytestmark = pytest.mark.django_db


def _build(campaign: str, task: str) -> None:
    call_command("build_pools", "--campaign", campaign, "--task", task, stdout=None)


def test_two_answer_tasks_pool_their_own_runs_and_open_qa_joins_the_one_it_names() -> None:
    campaign = CampaignFactory.create(name="Two years")
    older, newer = (
        RetrievalTaskFactory.create(campaign=campaign, kind="answer", name=name, primary_depth=2)
        for name in ("task1-2025", "task1-2026")
    )
    openqa = RetrievalTaskFactory.create(
        campaign=campaign, kind="openqa", name="task3", answer_task=newer
    )
    # The same topic numbers in both answer tasks.
    old_topics, new_topics = make_topics(older, 2), make_topics(newer, 2)
    load_answer_rows(make_run(older, "old"), {old_topics[0].pk: [11, 12], old_topics[1].pk: [13]})
    load_answer_rows(make_run(newer, "new"), {new_topics[0].pk: [21, 22], new_topics[1].pk: [23]})
    generated = make_run(openqa, "gen")
    RunRow.objects.create(
        run=generated, topic=new_topics[0], rank=1, score=1.0, answer="It is 4.", sources=""
    )

    with pytest.raises(CommandError, match=r"task1-2025 \(answer\), task1-2026 \(answer\)"):
        find_task("Two years", "task1")
    assert find_task("Two years", "task3") == openqa  # the campaign's only open-QA task
    assert answer_task_of(openqa) == newer
    assert pooled_runs(older).openqa_run_ids == []
    assert pooled_runs(newer).openqa_run_ids == [generated.pk]

    _build("Two years", "task1-2025")
    _build("Two years", "task3")  # joins task1-2026's pools
    old_keys = set(PoolItem.objects.filter(topic__task=older).values_list("key", flat=True))
    new_items = PoolItem.objects.filter(topic__task=newer)
    assert old_keys == {"11", "12", "13"}
    assert {i.post_id for i in new_items if i.post_id} == {21, 22, 23}
    assert list(new_items.filter(answer__gt="").values_list("answer", flat=True)) == ["It is 4."]

    # An open-QA task with no link, beside two answer tasks, names neither: refused.
    RetrievalTaskFactory.create(campaign=campaign, kind="openqa", name="task3-draft")
    builds = PoolBuild.objects.count()
    with pytest.raises(CommandError, match="no answer task"):
        _build("Two years", "task3-draft")
    assert PoolBuild.objects.count() == builds


def test_open_qa_link_is_validated_and_set_when_the_campaign_has_one_answer_task() -> None:
    campaign = CampaignFactory.create(name="One year")
    answer = RetrievalTaskFactory.create(campaign=campaign, kind="answer", name="task1")
    created, was_created = task_for_import(campaign_name="One year", task="task3")
    assert was_created
    assert (created.kind, created.name, created.answer_task) == ("openqa", "openqa", answer)

    elsewhere = RetrievalTaskFactory.create(kind="answer", name="task1")
    wrong = RetrievalTask(campaign=campaign, kind="openqa", name="qa2", answer_task=elsewhere)
    with pytest.raises(ValidationError, match="same campaign"):
        wrong.full_clean()
    formula = RetrievalTaskFactory.create(campaign=campaign, kind="formula", name="task2")
    wrong = RetrievalTask(campaign=campaign, kind="openqa", name="qa3", answer_task=formula)
    with pytest.raises(ValidationError, match="answer"):
        wrong.full_clean()
    not_qa = RetrievalTask(campaign=campaign, kind="formula", name="f2", answer_task=answer)
    with pytest.raises(ValidationError, match="only an open-QA task"):
        not_qa.full_clean()


def test_import_refuses_a_kind_shared_by_two_tasks_and_a_bad_name(tmp_path: Path) -> None:
    campaign = CampaignFactory.create(name="Shared")
    for name in ("a1", "a2"):
        RetrievalTaskFactory.create(campaign=campaign, kind="answer", name=name)
    topics = tmp_path / "topics.xml"
    topics.write_text("<Topics></Topics>")
    with pytest.raises(CommandError, match=r"2 answer tasks: name one of them \(a1 \(answer\)"):
        call_command("import_topics", str(topics), campaign="Shared", task="answer")
    with pytest.raises(CommandError, match="give its kind"):
        call_command("import_topics", str(topics), campaign="Shared", task="a3")
    with pytest.raises(CommandError, match="not a short name"):
        call_command("import_topics", str(topics), campaign="Shared", task="a 3", kind="answer")
    assert RetrievalTask.objects.filter(campaign=campaign).count() == 2
