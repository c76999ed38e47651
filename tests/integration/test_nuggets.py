"""Nugget evaluation end to end: RAG runs in both layouts, nuggets (imported, edited, proposed),
labels through REST (idempotent, revised), machine assignments imported, and every score checked
against a computation written here, per topic and per run."""

from __future__ import annotations

import io
import json
import tempfile
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient
from sklearn.metrics import cohen_kappa_score

from assessment.models import Assignment
from assessment.services.assignments import assignments_create
from collection.models import RetrievalTask, Topic
from nuggets.models import Nugget, NuggetLabel, NuggetProposal, NuggetRevision, RagAnswer
from nuggets.selectors import assignments_export_lines, nuggets_export_lines
from nuggets.services.labels import (
    LabelRefused,
    nugget_assignments_import,
    nugget_labels_submit,
)
from nuggets.services.nuggets import (
    NuggetError,
    nugget_add,
    nugget_delete,
    nugget_merge,
    nuggets_import,
    proposal_decide,
)
from nuggets.services.runs import rag_run_submit
from pooling.models import Run
from tests.factories.collection import (
    DocumentCollectionFactory,
    DocumentFactory,
    RetrievalTaskFactory,
    TopicFactory,
    UserFactory,
)
from tests.factories.pooling import TeamFactory

pytestmark = pytest.mark.django_db


def _jsonl(records: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def run_2024(topics: list[str]) -> bytes:
    return _jsonl(
        [
            {
                "run_id": "teamA-rag",
                "topic_id": t,
                "topic": f"question {t}",
                "references": ["seg_a", "seg_b"],
                "response_length": 8,
                "answer": [
                    {"text": "Nuggets are short facts.", "citations": [0]},
                    {"text": "Assessors mark them.", "citations": [1, 0]},
                ],
            }
            for t in topics
        ]
    )


def run_2025(topics: list[str]) -> bytes:
    return _jsonl(
        [
            {
                "metadata": {"team_id": "teamB", "run_id": "teamB-gen", "narrative_id": t},
                "references": ["seg_c"],
                "answer": [{"text": "A generated answer.", "citations": [0, "seg_d"]}],
            }
            for t in topics
        ]
    )


@pytest.fixture
def task() -> RetrievalTask:
    segments = DocumentCollectionFactory.create(name="segments")
    for docno in ("seg_a", "seg_b", "seg_c", "seg_d"):
        DocumentFactory.create(collection=segments, docno=docno, body=f"text of {docno}")
    found = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.RAG, collection=segments)
    for number in ("1", "2", "3"):
        TopicFactory.create(task=found, number=number, title=f"question {number}")
    return found


def _organizer() -> Any:
    return UserFactory.create(username="organizer", is_staff=True)


def _runs(task: RetrievalTask) -> tuple[Run, Run]:
    team_a, team_b = TeamFactory.create(name="teamA"), TeamFactory.create(name="teamB")
    member = UserFactory.create(username="alice")
    team_a.members.add(member)
    client = APIClient()
    client.force_authenticate(member)
    upload = SimpleUploadedFile("a.jsonl", run_2024(["1", "2"]))
    response = client.post("/api/rag-runs/", {"task": task.pk, "file": upload}, format="multipart")
    assert response.status_code == 201, response.json()
    assert response.json()["answers"] == 2
    run_b = rag_run_submit(
        task=task,
        team=team_b,
        stream=io.BytesIO(run_2025(["1", "2", "3"])),
        file_name="b.jsonl",
        uploaded_by=None,
    ).run
    return Run.objects.get(tag="teamA-rag"), run_b


def test_rag_runs_of_both_layouts_are_stored_with_their_citations_when_valid(task) -> None:
    run_a, run_b = _runs(task)
    assert (run_a.file_format, run_b.file_format) == ("trec-rag-2024", "trec-rag-2025")
    answer = RagAnswer.objects.get(run=run_a, topic__number="1")
    assert answer.sentences[1] == {"text": "Assessors mark them.", "citations": ["seg_b", "seg_a"]}
    assert RagAnswer.objects.get(run=run_b, topic__number="3").sentences[0]["citations"] == [
        "seg_c",
        "seg_d",
    ]


def test_a_run_citing_an_unknown_segment_is_refused_with_its_line_when_uploaded(task) -> None:
    member = UserFactory.create(username="bob")
    TeamFactory.create(name="teamC").members.add(member)
    bad = run_2024(["1"]) + _jsonl(
        [
            {
                "run_id": "teamA-rag",
                "topic_id": "2",
                "topic": "q",
                "references": ["seg_zz"],
                "response_length": 1,
                "answer": [{"text": "x", "citations": [0]}],
            }
        ]
    )
    client = APIClient()
    client.force_authenticate(member)
    response = client.post(
        "/api/rag-runs/",
        {"task": task.pk, "file": SimpleUploadedFile("bad.jsonl", bad)},
        format="multipart",
    )
    assert response.status_code == 400
    error = response.json()["report"]["errors"][0]
    assert (error["line"], error["field"]) == (2, "references[0]")
    assert "seg_zz" in error["message"]
    assert not Run.objects.exists()
    assert not RagAnswer.objects.exists()


NUGGETS: list[dict[str, Any]] = [
    {
        "qid": "1",
        "query": "question 1",
        "nuggets": [
            {"text": "nuggets are facts", "importance": "vital"},
            {"text": "assessors mark them", "importance": "vital"},
            {"text": "they are short", "importance": "okay"},
        ],
    },
    {
        "qid": "2",
        "query": "question 2",
        "nuggets": [
            {"text": "two vital", "importance": "vital"},
            {"text": "two okay", "importance": "okay"},
        ],
    },
]


def _expected(labels: list[tuple[str, str]]) -> dict[str, float]:
    """The TREC RAG 2024 measures of one answer, written out from their definitions."""
    full = {"support": 1.0, "partial_support": 0.5, "not_support": 0.0}
    strict = {"support": 1.0, "partial_support": 0.0, "not_support": 0.0}
    found = {}
    for prefix, s in (("", full), ("strict_", strict)):
        vital = [s[a] for i, a in labels if i == "vital"]
        okay = [s[a] for i, a in labels if i == "okay"]
        found[prefix + "all"] = (sum(vital) + sum(okay)) / len(labels)
        found[prefix + "vital"] = sum(vital) / len(vital) if vital else 0.0
        found[prefix + "weighted"] = (sum(vital) + 0.5 * sum(okay)) / (len(vital) + 0.5 * len(okay))
    return found


def test_labels_through_rest_give_the_scores_computed_by_hand_when_judged(task) -> None:
    _runs(task)
    organizer = _organizer()
    assert (
        nuggets_import(
            task=task,
            stream=io.BytesIO(_jsonl(NUGGETS)),
            file_name="n.jsonl",
            user=organizer,
            proposals=False,
        )
        == 5
    )
    assessor = UserFactory.create(username="assessor")
    topics = {t.number: t for t in Topic.objects.filter(task=task)}
    # Assigned as any task's topics are (the organizer's assignment service).
    made = assignments_create(
        topics=[topics["1"], topics["2"]], assessor=assessor, created_by=organizer
    )
    assignments = {a.topic.number: a for a in made}
    nuggets = {n.text: n.pk for n in Nugget.objects.all()}
    answers = {
        (a.run.tag, a.topic.number): a.pk for a in RagAnswer.objects.select_related("run", "topic")
    }
    client = APIClient()
    client.force_authenticate(assessor)

    def label(topic: str, run: str, given: dict[str, str], token: str) -> dict[str, Any]:
        response = client.post(
            f"/api/nuggets/assignments/{assignments[topic].pk}/labels/",
            {
                "answer": answers[(run, topic)],
                "labels": {str(nuggets[t]): s for t, s in given.items()},
                "client_token": token,
            },
            format="json",
        )
        assert response.status_code == 200, response.json()
        return response.json()

    label(
        "1",
        "teamA-rag",
        {
            "nuggets are facts": "support",
            "assessors mark them": "partial_support",
            "they are short": "not_support",
        },
        "t1",
    )
    # The same request again (a double submit) stores nothing new.
    again = label(
        "1",
        "teamA-rag",
        {
            "nuggets are facts": "support",
            "assessors mark them": "partial_support",
            "they are short": "not_support",
        },
        "t1",
    )
    assert (again["created"], again["changed"]) == (0, 0)
    label("2", "teamA-rag", {"two vital": "not_support", "two okay": "support"}, "t2")
    label(
        "1",
        "teamB-gen",
        {
            "nuggets are facts": "partial_support",
            "assessors mark them": "support",
            "they are short": "support",
        },
        "t3",
    )
    # A revision: the assessor changes their mind; the first value is kept as revision 1.
    revised = label("1", "teamB-gen", {"they are short": "partial_support"}, "t4")
    assert revised["changed"] == 1
    label("2", "teamB-gen", {"two vital": "support", "two okay": "partial_support"}, "t5")
    changed = NuggetLabel.objects.get(
        answer_id=answers[("teamB-gen", "1")], nugget_id=nuggets["they are short"]
    )
    assert [r.support for r in changed.revisions.order_by("number")] == [
        "support",
        "partial_support",
    ]

    # Someone else's assignment is not found.
    intruder = APIClient()
    intruder.force_authenticate(UserFactory.create(username="mallory"))
    response = intruder.post(
        f"/api/nuggets/assignments/{assignments['1'].pk}/labels/",
        {"answer": answers[("teamA-rag", "1")], "labels": {str(nuggets["two vital"]): "support"}},
        format="json",
    )
    assert response.status_code == 404

    per_topic = {
        ("teamA-rag", "1"): _expected(
            [("vital", "support"), ("vital", "partial_support"), ("okay", "not_support")]
        ),
        ("teamA-rag", "2"): _expected([("vital", "not_support"), ("okay", "support")]),
        ("teamB-gen", "1"): _expected(
            [("vital", "partial_support"), ("vital", "support"), ("okay", "partial_support")]
        ),
        ("teamB-gen", "2"): _expected([("vital", "support"), ("okay", "partial_support")]),
    }
    staff = APIClient()
    staff.force_authenticate(organizer)
    body = staff.get(f"/api/nuggets/tasks/{task.pk}/scores/").json()
    # Topic 3 has no nuggets: the scored topics are those with nuggets.
    assert body["topics"] == ["1", "2"]
    for row in body["runs"]:
        for topic in ("1", "2"):
            for name, value in per_topic[(row["run"], topic)].items():
                assert row["per_topic"][topic][name] == pytest.approx(value), (row["run"], topic)
            for name in per_topic[(row["run"], "1")]:
                mean = (per_topic[(row["run"], "1")][name] + per_topic[(row["run"], "2")][name]) / 2
                assert row["measures"][name] == pytest.approx(mean)

    # The export, scored by the command line, gives the same figures.
    nuggets_file = "".join(nuggets_export_lines(task))
    assigned_file = "".join(assignments_export_lines(task))
    out = StringIO()
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "n.jsonl").write_text(nuggets_file)
        Path(folder, "a.jsonl").write_text(assigned_file)
        call_command(
            "evaluate_nuggets",
            "--assignments",
            f"{folder}/a.jsonl",
            "--nuggets",
            f"{folder}/n.jsonl",
            "--format",
            "json",
            stdout=out,
        )
    cli = {r["run"]: r["measures"] for r in json.loads(out.getvalue())}
    for row in body["runs"]:
        assert cli[row["run"]] == pytest.approx(row["measures"])


def test_a_machine_judges_assignments_are_imported_and_kept_apart_when_given(task) -> None:
    _runs(task)
    organizer = _organizer()
    nuggets_import(
        task=task,
        stream=io.BytesIO(_jsonl(NUGGETS)),
        file_name="n.jsonl",
        user=organizer,
        proposals=False,
    )
    machine = UserFactory.create(username="judge-gpt")
    records = [
        {
            "qid": "1",
            "run_id": "teamA-rag",
            "nuggets": [
                {"text": "nuggets are facts", "importance": "vital", "assignment": "support"}
            ],
        },
    ]
    count = nugget_assignments_import(
        task=task, stream=io.BytesIO(_jsonl(records)), file_name="m.jsonl", assessor=machine
    )
    assert count == 1
    assert NuggetLabel.objects.get().assignment.purpose == Assignment.Purpose.MACHINE
    bad = [
        {
            "qid": "1",
            "run_id": "teamA-rag",
            "nuggets": [{"text": "not a nugget", "importance": "vital", "assignment": "support"}],
        }
    ]
    with pytest.raises(NuggetError) as caught:
        nugget_assignments_import(
            task=task, stream=io.BytesIO(_jsonl(bad)), file_name="m2.jsonl", assessor=machine
        )
    assert "m2.jsonl:1: nuggets[0].text" in caught.value.problems[0]


def test_nugget_edits_are_versioned_and_proposals_decided_when_the_editor_works(task) -> None:
    organizer = _organizer()
    topic = Topic.objects.get(task=task, number="1")
    first = nugget_add(topic=topic, text="first fact", importance="vital", user=organizer)
    second = nugget_add(topic=topic, text="second fact", user=organizer)
    nugget_merge(topic=topic, nugget_ids=[first.pk, second.pk], user=organizer)
    versions = list(NuggetRevision.objects.filter(topic=topic).order_by("version"))
    assert [v.action for v in versions] == ["add", "add", "merge"]
    assert versions[-1].nuggets[0]["text"] == "first fact; second fact"
    proposals = _jsonl(
        [
            {
                "qid": "1",
                "query": "q",
                "nuggets": [
                    {"text": "machine idea", "importance": "okay"},
                    {"text": "bad idea", "importance": "vital"},
                ],
            }
        ]
    )
    nuggets_import(
        task=task,
        stream=io.BytesIO(proposals),
        file_name="llm.jsonl",
        user=organizer,
        proposals=True,
        provenance="gpt-4o via nuggetizer",
    )
    edit, reject = NuggetProposal.objects.order_by("pk")
    proposal_decide(
        topic=topic,
        proposal_id=edit.pk,
        decision="edited",
        text="machine idea, edited",
        importance="vital",
        user=organizer,
    )
    proposal_decide(topic=topic, proposal_id=reject.pk, decision="rejected", user=organizer)
    live = list(Nugget.objects.filter(topic=topic, is_deleted=False).order_by("position"))
    assert [n.text for n in live] == ["first fact; second fact", "machine idea, edited"]
    assert live[1].origin == "machine"
    assert "gpt-4o" in live[1].provenance
    assert NuggetProposal.objects.get(pk=reject.pk).decided_by == organizer


def test_the_commands_import_runs_nuggets_and_labels_and_export_them_when_run(
    task, tmp_path
) -> None:
    (tmp_path / "a.jsonl").write_bytes(run_2024(["1", "2"]))
    (tmp_path / "b.jsonl").write_bytes(run_2025(["1"]))
    (tmp_path / "n.jsonl").write_bytes(_jsonl(NUGGETS))
    labels = [
        {
            "qid": "1",
            "run_id": "teamA-rag",
            "nuggets": [
                {"text": "nuggets are facts", "importance": "vital", "assignment": "support"},
                {"text": "they are short", "importance": "okay", "assignment": "partial_support"},
            ],
        },
        {
            "qid": "2",
            "run_id": "teamB-gen",
            "nuggets": [{"text": "two vital", "importance": "vital", "assignment": "support"}],
        },
    ]
    (tmp_path / "l.jsonl").write_bytes(_jsonl(labels))
    out = StringIO()
    call_command(
        "import_rag_runs",
        str(tmp_path / "a.jsonl"),
        str(tmp_path / "b.jsonl"),
        "--campaign",
        task.campaign.name,
        stdout=out,
    )
    assert "teamA/teamA-rag (trec-rag-2024), 2 answers" in out.getvalue()
    assert "teamB/teamB-gen (trec-rag-2025), 1 answers" in out.getvalue()
    call_command(
        "import_nuggets", str(tmp_path / "n.jsonl"), "--campaign", task.campaign.name, stdout=out
    )
    UserFactory.create(username="ann")
    with pytest.raises(CommandError, match="no answer of the run to"):
        call_command(
            "import_nugget_assignments",
            str(tmp_path / "l.jsonl"),
            "--campaign",
            task.campaign.name,
            "--assessor",
            "ann",
            "--purpose",
            "official",
        )
    labels[1]["qid"] = "1"
    labels[1]["nuggets"] = [
        {"text": "assessors mark them", "importance": "vital", "assignment": "support"}
    ]
    (tmp_path / "l.jsonl").write_bytes(_jsonl(labels))
    call_command(
        "import_nugget_assignments",
        str(tmp_path / "l.jsonl"),
        "--campaign",
        task.campaign.name,
        "--assessor",
        "ann",
        "--purpose",
        "official",
        stdout=out,
    )
    exported = StringIO()
    call_command(
        "export_nuggets", "--campaign", task.campaign.name, "--assignments", stdout=exported
    )
    records = [json.loads(line) for line in exported.getvalue().splitlines()]
    assert records == labels
    call_command(
        "export_nuggets", "--campaign", task.campaign.name, "-o", str(tmp_path / "n2.jsonl")
    )
    assert [json.loads(x) for x in (tmp_path / "n2.jsonl").read_text().splitlines()] == NUGGETS
    table = StringIO()
    call_command(
        "evaluate_nuggets",
        "--assignments",
        str(tmp_path / "l.jsonl"),
        "--nuggets",
        str(tmp_path / "n2.jsonl"),
        "--format",
        "csv",
        stdout=table,
    )
    rows = {r.split(",")[0]: r.split(",") for r in table.getvalue().splitlines()[1:]}
    # teamA-rag: topic 1 all = (1 + 0 + 0.5) / 3, topic 2 unanswered in the labels: 0.
    assert float(rows["teamA-rag"][2]) == pytest.approx((1.5 / 3 + 0) / 2, abs=5e-5)
    # teamB-gen: topic 1 all = 1 / 3 (one vital of three nuggets supported).
    assert float(rows["teamB-gen"][2]) == pytest.approx((1 / 3 + 0) / 2, abs=5e-5)


def test_the_nugget_pages_and_scores_cost_a_bounded_number_of_queries_when_opened(
    task, client, django_assert_max_num_queries
) -> None:
    _runs(task)
    organizer = _organizer()
    nuggets_import(
        task=task,
        stream=io.BytesIO(_jsonl(NUGGETS)),
        file_name="n.jsonl",
        user=organizer,
        proposals=False,
    )
    assessor = UserFactory.create(username="assessor")
    topic = Topic.objects.get(task=task, number="1")
    assignment = Assignment.objects.create(topic=topic, assessor=assessor, purpose="official")
    client.force_login(assessor)
    with django_assert_max_num_queries(12):
        assert client.get(f"/nuggets/assignments/{assignment.pk}/?at=2").status_code == 200
    client.force_login(organizer)
    with django_assert_max_num_queries(12):
        assert client.get(f"/nuggets/topics/{topic.pk}/").status_code == 200
    # 13: agreement reads the adjudications besides the labels (final labels where decided).
    with django_assert_max_num_queries(13):
        scores = client.get(f"/nuggets/tasks/{task.pk}/scores/")
    assert scores.status_code == 200
    assert scores.content.count(b"Agreement with the final labels") == 1
    assert b"<title>Nugget scores" in scores.content
    with django_assert_max_num_queries(13):
        assert client.get(f"/api/nuggets/tasks/{task.pk}/scores/").status_code == 200


def test_a_label_for_a_deleted_nugget_is_refused_when_submitted(task) -> None:
    _runs(task)
    organizer = _organizer()
    topic = Topic.objects.get(task=task, number="1")
    nugget = nugget_add(topic=topic, text="gone soon", user=organizer)
    nugget_delete(topic=topic, nugget_id=nugget.pk, user=organizer)
    assessor = UserFactory.create(username="assessor")
    assignment = Assignment.objects.create(topic=topic, assessor=assessor, purpose="official")
    answer = RagAnswer.objects.filter(topic=topic).first()
    assert answer is not None
    with pytest.raises(LabelRefused, match="not in this topic's list"):
        nugget_labels_submit(
            assignment_id=assignment.pk,
            answer_id=answer.pk,
            labels={nugget.pk: "support"},
            assessor=assessor,
        )


def test_citation_support_through_rest_gives_the_figures_computed_by_hand_when_labelled(
    task,
) -> None:
    _runs(task)
    organizer = _organizer()
    assessor = UserFactory.create(username="assessor")
    topic = Topic.objects.get(task=task, number="1")
    assignment = Assignment.objects.create(topic=topic, assessor=assessor, purpose="official")
    answer = RagAnswer.objects.get(run__tag="teamA-rag", topic=topic)
    client = APIClient()
    client.force_authenticate(assessor)
    url = f"/api/nuggets/assignments/{assignment.pk}/citations/"

    def send(labels: list[dict[str, Any]], token: str) -> Any:
        return client.post(
            url, {"answer": answer.pk, "labels": labels, "client_token": token}, format="json"
        )

    # teamA-rag's answer: sentence 0 cites seg_a; sentence 1 cites seg_b and seg_a.
    first = send(
        [
            {"sentence": 0, "segment": "seg_a", "support": "full"},
            {"sentence": 1, "segment": "seg_b", "support": "none"},
            {"sentence": 1, "segment": "seg_a", "support": "none"},
        ],
        "c1",
    )
    assert first.status_code == 200, first.json()
    # A change of mind: kept in the label's history.
    assert (
        send([{"sentence": 1, "segment": "seg_a", "support": "partial"}], "c2").status_code == 200
    )
    refused = send([{"sentence": 0, "segment": "seg_b", "support": "full"}], "c3")
    assert refused.status_code == 400
    assert "does not cite" in refused.json()["detail"]
    staff = APIClient()
    staff.force_authenticate(organizer)
    rows = {r["run"]: r for r in staff.get(f"/api/nuggets/tasks/{task.pk}/scores/").json()["runs"]}
    # precision: (1 + 0 + 0.5) / 3; recall: sentence 0 best 1, sentence 1 best 0.5 -> 0.75
    assert rows["teamA-rag"]["support_precision"] == pytest.approx(1.5 / 3)
    assert rows["teamA-rag"]["support_recall"] == pytest.approx(0.75)
    assert rows["teamB-gen"]["support_precision"] is None


def test_a_machines_agreement_with_the_official_labels_matches_sklearn_when_both_labelled(
    task,
) -> None:
    _runs(task)
    organizer = _organizer()
    nuggets_import(
        task=task,
        stream=io.BytesIO(_jsonl(NUGGETS)),
        file_name="n.jsonl",
        user=organizer,
        proposals=False,
    )
    topic = Topic.objects.get(task=task, number="1")
    assessor = UserFactory.create(username="assessor")
    assignment = Assignment.objects.create(topic=topic, assessor=assessor, purpose="official")
    texts = [n["text"] for n in NUGGETS[0]["nuggets"]]
    ids = {n.text: n.pk for n in Nugget.objects.filter(topic=topic)}
    people = {
        "teamA-rag": ["support", "partial_support", "not_support"],
        "teamB-gen": ["support", "support", "partial_support"],
    }
    machine = {
        "teamA-rag": ["support", "not_support", "not_support"],
        "teamB-gen": ["partial_support", "support", "partial_support"],
    }
    for run, labels in people.items():
        answer = RagAnswer.objects.get(run__tag=run, topic=topic)
        nugget_labels_submit(
            assignment_id=assignment.pk,
            answer_id=answer.pk,
            labels={ids[t]: s for t, s in zip(texts, labels, strict=True)},
            assessor=assessor,
        )
    records = [
        {
            "qid": "1",
            "run_id": run,
            "nuggets": [
                {"text": t, "importance": "vital", "assignment": s}
                for t, s in zip(texts, labels, strict=True)
            ],
        }
        for run, labels in machine.items()
    ]
    nugget_assignments_import(
        task=task,
        stream=io.BytesIO(_jsonl(records)),
        file_name="m.jsonl",
        assessor=UserFactory.create(username="judge-llm"),
    )
    staff = APIClient()
    staff.force_authenticate(organizer)
    (row,) = staff.get(f"/api/nuggets/tasks/{task.pk}/scores/").json()["agreement"]
    a = people["teamA-rag"] + people["teamB-gen"]
    b = machine["teamA-rag"] + machine["teamB-gen"]
    assert (row["assessor"], row["purpose"], row["pairs"]) == ("judge-llm", "machine", 6)
    assert row["agreement"] == pytest.approx(sum(x == y for x, y in zip(a, b, strict=True)) / 6)
    assert row["kappa"] == pytest.approx(cohen_kappa_score(a, b))
    strict_a = [x == "support" for x in a]
    strict_b = [x == "support" for x in b]
    assert row["kappa_strict"] == pytest.approx(cohen_kappa_score(strict_a, strict_b))


@pytest.mark.parametrize(
    ("who", "path", "expected"),
    [
        ("anonymous", "/nuggets/topics/{topic}/", 302),
        ("assessor", "/nuggets/topics/{topic}/", 403),
        ("assessor", "/nuggets/tasks/{task}/scores/", 403),
        ("other", "/nuggets/assignments/{assignment}/", 404),
        ("assessor", "/nuggets/assignments/{assignment}/", 200),
        ("organizer", "/nuggets/topics/{topic}/", 200),
        ("assessor", "/api/nuggets/topics/{topic}/", 403),
        ("assessor", "/api/nuggets/tasks/{task}/scores/", 403),
    ],
)
def test_nugget_pages_open_only_to_their_role_when_requested(
    task, client, who: str, path: str, expected: int
) -> None:
    _runs(task)
    topic = Topic.objects.get(task=task, number="1")
    assessor = UserFactory.create(username="assessor")
    assignment = Assignment.objects.create(topic=topic, assessor=assessor, purpose="official")
    users = {
        "assessor": assessor,
        "other": UserFactory.create(username="other"),
        "organizer": _organizer(),
    }
    if who in users:
        client.force_login(users[who])
    url = path.format(topic=topic.pk, task=task.pk, assignment=assignment.pk)
    assert client.get(url).status_code == expected


def test_the_labelling_page_does_not_tell_an_assessor_which_nuggets_a_machine_proposed(
    task, client
) -> None:
    _runs(task)
    organizer = _organizer()
    topic = Topic.objects.get(task=task, number="1")
    nugget_add(topic=topic, text="a fact a person wrote", user=organizer)
    nugget_add(topic=topic, text="a fact a machine proposed", user=organizer, origin="machine")
    assessor = UserFactory.create(username="ann")
    assignment = Assignment.objects.create(topic=topic, assessor=assessor, purpose="official")
    client.force_login(assessor)
    page = client.get(f"/nuggets/assignments/{assignment.pk}/").content.decode()
    assert "a fact a machine proposed" in page
    assert '"origin"' not in page
    assert "machine" not in page.replace("a fact a machine proposed", "")
    client.force_login(organizer)  # the organizer's editor still marks machine nuggets
    assert '"origin": "machine"' in client.get(f"/nuggets/topics/{topic.pk}/").content.decode()


def test_a_binary_nuggets_file_is_refused_as_binary_not_as_a_run_when_imported(task) -> None:
    with pytest.raises(NuggetError) as caught:
        nuggets_import(
            task=task,
            stream=io.BytesIO(b'{"qid": "1"}\n\x00\xff'),
            file_name="nuggets.jsonl",
            user=_organizer(),
            proposals=False,
        )
    said = caught.value.problems[0]
    assert said.startswith("nuggets.jsonl:2: binary file"), said
    assert "run file" not in said
    assert not Nugget.objects.filter(topic__task=task).exists()  # nothing half-stored


def test_the_results_page_of_a_rag_task_points_to_its_nugget_scores_when_opened(
    task, client
) -> None:
    """The results list links every task; a RAG task has no qrels, so its results page must
    say where its scores are instead of "No qrels yet"."""
    _runs(task)
    client.force_login(_organizer())
    page = client.get(f"/results/{task.pk}/")
    assert page.status_code == 200
    text = page.content.decode()
    assert f'href="/nuggets/tasks/{task.pk}/scores/"' in text
    assert "No qrels yet" not in text


def test_a_rag_task_offers_only_the_nugget_publication_on_the_results_pages(task, client) -> None:
    """A RAG task's scores are nugget scores: the results page and the results list link its
    nugget publication, never the qrels-based publication (which would publish nothing)."""
    _runs(task)
    client.force_login(_organizer())
    for url in (f"/results/{task.pk}/", "/results/"):
        text = client.get(url).content.decode()
        assert f'href="/nuggets/tasks/{task.pk}/published/">Nugget publication…</a>' in text
        assert f"/results/{task.pk}/publication/" not in text
        assert "Publish…" not in text


def test_the_organizers_results_list_links_a_rag_tasks_nugget_publication_once(
    task, client
) -> None:
    _runs(task)
    client.force_login(_organizer())
    text = client.get("/results/").content.decode()
    row = next(r for r in text.split("<tr>") if f"<code>{task.name}</code>" in r)
    assert row.count(f'href="/nuggets/tasks/{task.pk}/published/"') == 1
    assert "Nugget publication…" in row


def test_the_qrels_publication_of_a_rag_task_is_not_found_when_opened(task, client) -> None:
    """A RAG task publishes its nugget scores through the nuggets app: the qrels-based
    publication page and endpoint answer 404, like the other pages that fit only some kinds of
    task, and the service refuses it, so nothing is published with qrels."""
    from evaluation.models import PublicationEvent, QrelsVersion, TaskPublication
    from evaluation.services import PublicationError, results_publish

    _runs(task)
    organizer = _organizer()
    qrels = QrelsVersion.objects.create(task=task, level="item", content="", checksum="x" * 64)
    client.force_login(organizer)
    page = f"/results/{task.pk}/publication/"
    assert client.get(page).status_code == 404
    assert client.post(page, {"action": "publish", "qrels": qrels.pk}).status_code == 404
    api = APIClient()
    api.force_authenticate(organizer)
    endpoint = f"/api/results/{task.pk}/publication/"
    assert api.get(endpoint).status_code == 404
    assert api.post(endpoint, {"qrels": qrels.pk}, format="json").status_code == 404
    assert api.delete(endpoint).status_code == 404
    with pytest.raises(PublicationError, match="nugget publication"):
        results_publish(task=task, qrels=qrels, by=organizer)
    assert not PublicationEvent.objects.exists()
    assert not TaskPublication.objects.exists()
