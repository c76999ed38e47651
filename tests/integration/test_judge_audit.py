"""The audit page of a machine judge: its figures against an independent computation in the
test (scikit-learn's kappa over the pairs worked out from the fixture's story, P'@10 by hand),
organizers only, and the judge's grades on probe items."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse
from sklearn.metrics import cohen_kappa_score

from evaluation.selectors.audit import judge_audit
from judges.models import JudgeAnswer, JudgeRun, ProbeItem
from judges.services.probes import probe_add
from tests.factories import UserFactory
from tests.integration.machine_judge_data import JUDGE_GRADES, import_judge, jsonl
from tests.integration.machine_judge_data import judged_task_with_open_item as judged_task

pytestmark = pytest.mark.django_db

# The final qrels of evaluation_data's story (adjudicated > official > dual; 104 is a flag),
# and the judge's grades (JUDGE_GRADES), over the hits both graded: (people, machine).
PAIRS = {"101": (3, 3), "102": (0, 1), "103": (2, 2), "105": (2, 2), "201": (2, 2), "202": (3, 0)}


def test_audit_figures_match_an_independent_computation_when_a_judge_is_imported(
    tmp_path: Path,
) -> None:
    data = judged_task()
    judge, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES))
    audit = judge_audit(task=data.task, judge=judge, with_ci=True)
    people = [p for p, _ in PAIRS.values()]
    machine = [m for _, m in PAIRS.values()]
    pair = audit.qrels.pair
    assert pair is not None
    assert pair.shared == 6
    assert pair.kappa.value == pytest.approx(
        cohen_kappa_score(people, machine, labels=[0, 1, 2, 3])
    )
    binary = cohen_kappa_score([int(p >= 2) for p in people], [int(m >= 2) for m in machine])
    assert pair.kappa_binary.value == pytest.approx(binary)
    confusion = audit.qrels.confusion
    assert confusion.counts == {(3, 3): 1, (0, 1): 1, (2, 2): 3, (3, 0): 1}
    assert confusion.agreed == 4
    # Per topic: A.1 holds 101, 102, 103, 105; A.2 holds 201, 202.
    assert [(t, p.shared) for t, p in audit.per_topic] == [("A.1", 4), ("A.2", 2)]
    # The agreement page's intervals, computed (6 shared hits are fewer than its minimum).
    assert len(audit.qrels.intervals) == 2
    # P'@10 by hand: people alpha (A.1: 101, 103 relevant; A.2: 202, 201) = 0.2, beta 0.1;
    # machine alpha (A.1: 101, 103; A.2: 201) = 0.15, beta 0.1: the same order, tau 1.
    by_measure = {r.measure: r for r in audit.rankings}
    assert by_measure["p10_prime"].systems == 2
    assert by_measure["p10_prime"].tau == pytest.approx(1.0)
    assert by_measure["p10_prime"].tau_ap == pytest.approx(1.0)
    # Against each assessor: the official one shares 101, 102, 103, 201, 202 with the judge.
    shared = sorted(v.pair.shared for v in audit.assessors if v.pair)
    assert shared == [3, 5]


def test_audit_page_shows_the_figures_to_organizers_only(
    tmp_path: Path, django_assert_max_num_queries
) -> None:  # type: ignore[no-untyped-def]
    data = judged_task()
    judge, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES))
    url = reverse("evaluation:judge-audit", args=[data.task.pk, judge.pk])
    client = Client()
    client.force_login(UserFactory.create())
    assert client.get(url).status_code in (302, 403)
    client.force_login(UserFactory.create(is_staff=True))
    with django_assert_max_num_queries(40):
        page = client.get(url + "?ci=1")
    assert page.status_code == 200
    text = page.content.decode()
    assert 'id="confusion-qrels"' in text
    assert "p10_prime" in text
    assert 'id="probe-results"' in text
    other = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES[:2]), name="other")[0]
    assert (
        client.get(
            reverse("evaluation:judge-audit", args=[data.task.pk + 99, other.pk])
        ).status_code
        == 404
    )


def test_probe_grades_of_the_judges_runs_appear_on_its_audit(tmp_path: Path) -> None:
    data = judged_task()
    judge, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES))
    assert judge_audit(task=data.task, judge=judge).probes == []
    topic = data.task.topics.order_by("pk")[0]
    probe = probe_add(topic=topic, kind=ProbeItem.Kind.INSTRUCTION, seed=1)
    run = JudgeRun.objects.create(
        task=data.task, judge=judge, endpoint_name="local", model="m1", prompt_version=2
    )
    asked = {"endpoint_name": "local", "model": "m1", "topic": topic, "item_key": probe.key}
    JudgeAnswer.objects.create(**asked, prompt_version=2, probe=probe, run=run, ok=True, grade=3)
    # An answer of a configuration this judge's runs never asked with is not its grade.
    JudgeAnswer.objects.create(**asked, prompt_version=1, probe=probe, ok=True, grade=0)
    [section] = judge_audit(task=data.task, judge=judge).probes
    assert section.rows == [
        [topic.number, ProbeItem.Kind.INSTRUCTION.label, probe.key, "local · m1 · prompt v2", "3"]
    ]


def test_audit_reads_each_run_once_when_it_ranks_the_runs_under_both_qrels(
    tmp_path: Path,
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from pooling.models import Run, RunRow

    data = judged_task()
    judge, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES))
    table = RunRow._meta.db_table
    with CaptureQueriesContext(connection) as queries:
        audit = judge_audit(task=data.task, judge=judge)
    reads = [q["sql"] for q in queries.captured_queries if f'FROM "{table}"' in q["sql"]]
    runs = Run.objects.filter(task=data.task).count()
    assert audit.rankings
    assert runs == 2
    assert len(reads) == runs
