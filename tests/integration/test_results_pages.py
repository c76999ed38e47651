"""Results and qrels pages: who sees what, downloads, actions, bounded queries."""

import collections
import csv
import io
import itertools
import json

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from evaluation.models import EvaluationJob, QrelsVersion
from evaluation.services import evaluation_job_run, qrels_export, results_publish
from tests.factories import UserFactory
from tests.integration.evaluation_data import JudgedTask, judged_answer_task

pytestmark = pytest.mark.django_db


@pytest.fixture
def evaluated() -> tuple[JudgedTask, QrelsVersion]:
    data = judged_answer_task()
    qrels = qrels_export(task=data.task)
    evaluation_job_run(job=EvaluationJob.objects.create(task=data.task, qrels=qrels, seed=1))
    return data, qrels


def logged_in(*, staff: bool = False) -> tuple[Client, User]:
    client = Client()
    user = UserFactory.create(is_staff=staff)
    client.force_login(user)
    return client, user


def test_staff_results_page_shows_runs_best_first_with_significance_when_evaluated(
    evaluated: tuple[JudgedTask, QrelsVersion], django_assert_max_num_queries: object
) -> None:
    data, qrels = evaluated
    client, _ = logged_in(staff=True)
    # 14: one of them asks whether the task's topics have categories, one reaps dead workers'
    # evaluation chunks
    with django_assert_max_num_queries(14):  # type: ignore[operator]
        response = client.get(reverse("evaluation:results", args=[data.task.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert html.index("Alpha") < html.index("Beta")  # alpha's nDCG' is higher
    assert qrels.checksum[:12] in html
    assert "Significance" in html
    assert "Pool reusability" in html
    chart = response.context["chart"]
    assert chart["runs"] == ["Alpha/alpha", "Beta/beta"]
    assert chart["topics"] == ["A.1", "A.2"]


def test_participant_sees_only_own_runs_without_staff_tables_when_results_published(
    evaluated: tuple[JudgedTask, QrelsVersion],
) -> None:
    data, qrels = evaluated
    results_publish(task=data.task, qrels=qrels, by=UserFactory.create(is_staff=True))
    client, user = logged_in()
    data.beta.team.members.add(user)
    response = client.get(reverse("evaluation:results", args=[data.task.pk]))
    html = response.content.decode()
    assert [row["tag"] for row in response.context["rows"]] == ["beta"]
    assert "Alpha" not in html
    assert "Significance" not in html
    assert "Pool reusability" not in html


def test_participant_is_told_results_are_unpublished_when_not_published(
    evaluated: tuple[JudgedTask, QrelsVersion],
) -> None:
    data, _ = evaluated
    client, user = logged_in()
    data.beta.team.members.add(user)
    response = client.get(reverse("evaluation:results", args=[data.task.pk]))
    assert response.status_code == 403
    assert "not published" in response.content.decode()
    download = reverse("evaluation:results-download", args=[data.task.pk, "csv"])
    assert client.get(download).status_code == 403


@pytest.mark.parametrize(
    ("fmt", "check"),
    [
        ("csv", lambda body: body.splitlines()[1].startswith("Alpha/alpha,")),
        ("json", lambda body: [r["tag"] for r in json.loads(body)] == ["alpha", "beta"]),
        ("latex", lambda body: "\\begin{tabular}" in body and "Alpha/alpha" in body),
        ("topics", lambda body: "Beta/beta,A.1," in body),
    ],
)
def test_downloads_hold_the_table_when_format_chosen(
    evaluated: tuple[JudgedTask, QrelsVersion], fmt: str, check: object
) -> None:
    data, _ = evaluated
    client, _ = logged_in(staff=True)
    response = client.get(reverse("evaluation:results-download", args=[data.task.pk, fmt]))
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    assert check(response.content.decode())  # type: ignore[operator]


def test_qrels_page_exports_then_starts_evaluation_when_organizer_posts(
    django_capture_on_commit_callbacks: object, django_assert_max_num_queries: object
) -> None:
    data = judged_answer_task()
    client, _ = logged_in(staff=True)
    url = reverse("evaluation:qrels", args=[data.task.pk])
    response = client.post(url, {"action": "export", "level": "item", "use_dual": "on"})
    assert response.status_code == 302
    version = QrelsVersion.objects.get()
    assert version.row_count == 6
    with django_capture_on_commit_callbacks(execute=False) as callbacks:  # type: ignore[operator]
        client.post(url, {"action": "evaluate", "qrels": version.pk})
    assert len(callbacks) == 1  # the Celery enqueue waits for the commit
    job = EvaluationJob.objects.get()
    assert (job.qrels_id, job.runs_total, job.status) == (version.pk, 2, "pending")
    with django_assert_max_num_queries(11):  # type: ignore[operator]  # +1: chunks reaped
        page = client.get(url)
    assert version.checksum[:12] in page.content.decode()
    progress = client.get(reverse("evaluation:job-progress", args=[job.pk])).json()
    assert progress == {
        "status": "pending",
        "runs_done": 0,
        "runs_total": 2,
        "error": "",
        "attempts": 1,
        "worker_lost_at": None,
    }


def test_qrels_page_shows_error_when_instance_level_asked_for_answer_task() -> None:
    data = judged_answer_task()
    client, _ = logged_in(staff=True)
    url = reverse("evaluation:qrels", args=[data.task.pk])
    response = client.post(url, {"action": "export", "level": "instance"}, follow=True)
    assert "formula task only" in response.content.decode()
    assert not QrelsVersion.objects.exists()


def test_qrels_download_gives_file_with_checksum_to_staff_only_when_requested(
    evaluated: tuple[JudgedTask, QrelsVersion],
) -> None:
    _, qrels = evaluated
    url = reverse("evaluation:qrels-download", args=[qrels.pk])
    staff, _ = logged_in(staff=True)
    response = staff.get(url)
    assert response.content.decode() == qrels.content
    assert response["X-Qrels-Checksum"] == qrels.checksum
    participant, _ = logged_in()
    assert participant.get(url).status_code == 403


def test_results_index_lists_tasks_with_bounded_queries_when_staff(
    evaluated: tuple[JudgedTask, QrelsVersion], django_assert_max_num_queries: object
) -> None:
    data, _ = evaluated
    client, _ = logged_in(staff=True)
    with django_assert_max_num_queries(6):  # type: ignore[operator]
        response = client.get(reverse("evaluation:index"))
    assert reverse("evaluation:results", args=[data.task.pk]) in response.content.decode()


def test_qrels_page_imports_file_in_its_order_or_lists_its_problem_when_uploaded() -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    data = judged_answer_task()
    client, _ = logged_in(staff=True)
    url = reverse("evaluation:qrels", args=[data.task.pk])
    text = "A.2\t0\t202\t3\r\nA.1\t0\t101\t1\r\n"
    upload = SimpleUploadedFile("qrels.tsv", text.encode())
    assert (
        client.post(url, {"action": "import", "file": upload, "label": "official"}).status_code
        == 302
    )
    version = QrelsVersion.objects.get()
    assert version.content == text.replace("\r\n", "\n")
    bad = SimpleUploadedFile("bad.tsv", b"A.1\t0\t101\n")
    response = client.post(url, {"action": "import", "file": bad})
    assert "line 1: expected 4 columns" in response.content.decode()
    assert QrelsVersion.objects.count() == 1


def test_results_break_down_by_topic_category_when_categories_are_imported(
    evaluated: tuple[JudgedTask, QrelsVersion], tmp_path, django_assert_max_num_queries: object
) -> None:
    from io import StringIO

    from django.core.management import call_command

    from evaluation.models import EvaluationResult

    data, qrels = evaluated
    path = tmp_path / "categories.tsv"
    path.write_text("topic\ttype\tdifficulty\nA.1\tproof\thigh\nA.2\tproof\tlow\n")
    out = StringIO()
    campaign = data.task.campaign.name
    call_command(
        "import_topic_categories", str(path), "--campaign", campaign, "--task", "answer", stdout=out
    )
    assert "categories of 2 topic(s) stored" in out.getvalue()
    client, _ = logged_in(staff=True)
    with django_assert_max_num_queries(14):  # type: ignore[operator]  # +1: chunks reaped
        response = client.get(
            reverse("evaluation:results", args=[data.task.pk]), {"measure": "ndcg_prime"}
        )
    html = response.content.decode()
    assert "By topic category" in html
    table = response.context["by_category"]
    assert [(s.category, s.value) for s in table["subsets"]] == [
        ("difficulty", "high"),
        ("difficulty", "low"),
        ("type", "proof"),
    ]
    for line, result in zip(
        table["runs"],
        sorted(EvaluationResult.objects.filter(qrels=qrels), key=lambda r: r.run.tag),
        strict=True,
    ):
        # a topic the run left out scores 0 (these results average over all qrels topics)
        a1 = result.per_topic.get("A.1", {}).get("ndcg_prime", 0.0)
        a2 = result.per_topic.get("A.2", {}).get("ndcg_prime", 0.0)
        assert line["means"] == pytest.approx([a1, a2, (a1 + a2) / 2])


def test_unknown_topic_in_a_categories_file_stores_nothing_and_names_the_line(
    evaluated: tuple[JudgedTask, QrelsVersion], tmp_path
) -> None:
    from django.core.management import call_command
    from django.core.management.base import CommandError

    from collection.models import Topic

    data, _ = evaluated
    path = tmp_path / "categories.tsv"
    path.write_text("topic\ttype\nA.1\tproof\nA.99\tconcept\n")
    with pytest.raises(CommandError, match=r"categories\.tsv line 3: topic 'A\.99' is not a topic"):
        call_command(
            "import_topic_categories", str(path), "--campaign", data.task.campaign.name,
            "--task", "answer",
        )  # fmt: skip
    assert not Topic.objects.filter(task=data.task, metadata__has_key="categories").exists()


def test_results_say_what_the_task_does_with_unjudged_results_when_shown(
    evaluated: tuple[JudgedTask, QrelsVersion],
) -> None:
    data, _ = evaluated
    client, _ = logged_in(staff=True)
    html = client.get(reverse("evaluation:results", args=[data.task.pk])).content.decode()
    assert "Unjudged results are left out before scoring." in html
    data.task.official_measures = ["map", "P_10"]
    data.task.save(update_fields=["official_measures"])
    html = client.get(reverse("evaluation:results", args=[data.task.pk])).content.decode()
    assert "Unjudged results count as not relevant (as in trec_eval)." in html


def test_qrels_page_refuses_a_file_over_the_size_setting_when_uploaded(settings) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    settings.QRELS_FILE_MAX_BYTES = 20
    data = judged_answer_task()
    client, _ = logged_in(staff=True)
    url = reverse("evaluation:qrels", args=[data.task.pk])
    upload = SimpleUploadedFile("qrels.tsv", b"A.1\t0\t101\t1\n" * 2)  # 26 bytes
    response = client.post(url, {"action": "import", "file": upload, "label": "official"})
    assert response.status_code == 200
    assert "larger than the limit of 20 bytes" in response.content.decode()
    assert not QrelsVersion.objects.exists()


def test_task1_runs_show_ar_and_p1_of_their_first_answer_when_evaluated(
    evaluated: tuple[JudgedTask, QrelsVersion],
) -> None:
    """By hand from evaluation_data: qrels A.1 101=H(3), 105=M(2); A.2 202=H(3). Alpha's first
    answers are 101 and 202: AR (3 + 3) / 2, P@1 1. Beta's is 105 for A.1 and nothing for A.2
    (0 over all qrels topics): AR (2 + 0) / 2 = 1, P@1 0.5."""
    data, _ = evaluated
    client, _ = logged_in(staff=True)
    response = client.get(reverse("evaluation:results", args=[data.task.pk]))
    rows = {row["tag"]: (row["ar"], row["p1"]) for row in response.context["rows"]}
    assert rows == {"alpha": (3.0, 1.0), "beta": (1.0, 0.5)}
    html = response.content.decode()
    assert "AR (first)" in html
    assert "score each run's first answer as Task 3 scores an answer" in html


def test_page_lists_the_chosen_runs_pairs_and_download_has_all_when_400_runs_were_tested(
    evaluated: tuple[JudgedTask, QrelsVersion],
) -> None:
    data, qrels = evaluated
    job = EvaluationJob.objects.get(task=data.task, qrels=qrels)
    # 400 runs' all-pairs tests as a job stores them: the two real runs and 398 others.
    labels = ["Alpha/alpha", "Beta/beta", *(f"Team{i}/run{i}" for i in range(398))]
    pairs = [
        {
            "a": a,
            "b": b,
            "mean_difference": 0.001 * (i % 7),
            "t_statistic": 1.5,
            "t_p": 0.2,
            "t_p_holm": 1.0,
            "randomization_p": 0.25,
            "randomization_p_holm": 1.0,
        }
        for i, (a, b) in enumerate(itertools.combinations(labels, 2))
    ]
    assert len(pairs) == 79_800
    job.significance["measures"]["ndcg_prime"] = pairs
    job.save(update_fields=["significance"])
    client, _ = logged_in(staff=True)
    response = client.get(reverse("evaluation:results", args=[data.task.pk]))
    shown = response.context["significance"]
    assert (shown["total"], shown["run"], len(shown["pairs"])) == (79_800, "Alpha/alpha", 399)
    assert all("Alpha/alpha" in (p["a"], p["b"]) for p in shown["pairs"])
    html = response.content.decode()
    assert html.count("<td>Team") == 398  # each other run once, beside Alpha
    assert "79800 pairs in all" in html
    download = reverse("evaluation:results-download", args=[data.task.pk, "significance"])
    body = client.get(download, {"qrels": qrels.pk}).content.decode()
    rows = list(csv.reader(io.StringIO(body)))
    assert rows[0][:3] == ["measure", "run_a", "run_b"]
    by_measure = collections.Counter(row[0] for row in rows[1:])
    assert by_measure["ndcg_prime"] == 79_800
    assert set(by_measure) == set(job.significance["measures"])
    participant, user = logged_in()
    data.beta.team.members.add(user)
    results_publish(task=data.task, qrels=qrels, by=UserFactory.create(is_staff=True))
    assert participant.get(download).status_code == 403
