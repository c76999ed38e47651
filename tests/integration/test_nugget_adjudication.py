"""Adjudication of nugget labels: which answers hold disputes (people, and machine judges when
asked), final labels recorded with who and when, the original labels untouched, earlier
decisions kept, and scores and exports that take the final labels, checked against the
TREC RAG 2024 measures computed here."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from nuggets.models import NuggetAdjudication, NuggetLabel, NuggetLabelRevision
from nuggets.selectors import assignments_export_lines, task_nugget_scores
from nuggets.selectors.adjudication import answer_disputes
from nuggets.services.adjudication import NuggetAdjudicationError, nugget_adjudication_decide
from nuggets.services.nuggets import nugget_delete
from tests.factories.collection import RetrievalTaskFactory, UserFactory
from tests.integration.nugget_disputes import LABELS, NUGGETS, RUN_TOPICS, N, P, S, disputed_task

pytestmark = pytest.mark.django_db

VALUE = {S: 1.0, P: 0.5, N: 0.0}
STRICT = {S: 1.0, P: 0.0, N: 0.0}


def expected_topic(importances: list[str], labels: list[str]) -> dict[str, float]:
    """The six measures of one answer, from Pradeep et al. (2024) §3 written out."""
    found = {}
    for prefix, value in (("", VALUE), ("strict_", STRICT)):
        vital = [value[s] for i, s in zip(importances, labels, strict=True) if i == "vital"]
        okay = [value[s] for i, s in zip(importances, labels, strict=True) if i == "okay"]
        found[prefix + "all"] = (sum(vital) + sum(okay)) / len(labels)
        found[prefix + "vital"] = sum(vital) / len(vital) if vital else 0.0
        found[prefix + "weighted"] = (sum(vital) + 0.5 * sum(okay)) / (len(vital) + 0.5 * len(okay))
    return found


def expected_scores(finals: dict[tuple[str, str, int], str]) -> dict[str, dict[str, Any]]:
    """Run -> {"per_topic", "measures"}: alice's labels, replaced by ``finals`` (run, topic,
    nugget index) where given; a topic a run did not answer scores 0 in the mean."""
    found: dict[str, dict[str, Any]] = {}
    for run, topics in RUN_TOPICS.items():
        per_topic = {}
        for topic in topics:
            labels = [
                finals.get((run, topic, index), triple[0])
                for index, triple in enumerate(LABELS[(run, topic)])
            ]
            per_topic[topic] = expected_topic([i for _, i in NUGGETS[topic]], labels)
        measures = {
            m: sum(per_topic.get(t, {}).get(m, 0.0) for t in NUGGETS) / len(NUGGETS)
            for m in per_topic[topics[0]]
        }
        found[run] = {"per_topic": per_topic, "measures": measures}
    return found


def assert_scores(task: Any, finals: dict[tuple[str, str, int], str]) -> None:
    expected = expected_scores(finals)
    scores = task_nugget_scores(task)
    assert {row.run for row in scores.runs} == set(expected)
    for row in scores.runs:
        for topic, measures in expected[row.run]["per_topic"].items():
            assert row.per_topic[topic] == pytest.approx(measures), (row.run, topic)
        assert row.measures == pytest.approx(expected[row.run]["measures"]), row.run


def _originals() -> list[tuple[int, int, int, str, int]]:
    return sorted(
        NuggetLabel.objects.values_list(
            "assignment_id", "answer_id", "nugget_id", "support", "revision"
        )
    )


def test_disputes_list_the_answers_whose_people_differ_and_the_machine_when_asked() -> None:
    data = disputed_task()
    people = answer_disputes(data.task)
    assert [(d.answer_id, d.disputed, d.decided) for d in people] == [
        (data.answers[("runA", "1")].pk, 1, 0),
        (data.answers[("runB", "1")].pk, 2, 0),
    ]
    with_machine = answer_disputes(data.task, with_machine=True)
    assert [(d.topic, d.answer_id, d.disputed) for d in with_machine] == [
        ("1", data.answers[("runA", "1")].pk, 1),
        ("1", data.answers[("runB", "1")].pk, 2),
        ("2", data.answers[("runA", "2")].pk, 1),
    ]


def test_final_labels_replace_the_official_ones_in_scores_and_exports_when_decided() -> None:
    data = disputed_task()
    boss = UserFactory.create(username="boss", is_staff=True)
    before = _originals()
    revisions = NuggetLabelRevision.objects.count()
    assert_scores(data.task, {})
    n1 = data.nuggets["1"]
    nugget_adjudication_decide(
        task=data.task,
        answer_id=data.answers[("runB", "1")].pk,
        finals={n1[0].pk: N, n1[2].pk: S},
        decided_by=boss,
        note="  bob read the answer right  ",
    )
    assert_scores(data.task, {("runB", "1", 0): N, ("runB", "1", 2): S})
    stored = {
        a.nugget_id: (a.support, a.note, a.decided_by.username, a.history)
        for a in NuggetAdjudication.objects.select_related("decided_by")
    }
    assert stored == {
        n1[0].pk: (N, "bob read the answer right", "boss", []),
        n1[2].pk: (S, "bob read the answer right", "boss", []),
    }
    assert answer_disputes(data.task)[1].is_decided
    # The export says the final labels too.
    exported = [line for line in assignments_export_lines(data.task) if '"runB"' in line]
    assert (
        '"text": "nuggets are short facts", "importance": "vital", "assignment": "not_support"'
        in (next(line for line in exported if '"qid": "1"' in line))
    )
    # Never lost: every label and every revision of it is as it was.
    assert _originals() == before
    assert NuggetLabelRevision.objects.count() == revisions


def test_a_changed_decision_keeps_the_earlier_one_and_a_label_sent_as_stored_stays_as_it_is() -> (
    None
):
    data = disputed_task()
    boss = UserFactory.create(username="boss", is_staff=True)
    other = UserFactory.create(username="chief", is_staff=True)
    answer = data.answers[("runA", "1")].pk
    nugget = data.nuggets["1"][1].pk
    first = nugget_adjudication_decide(
        task=data.task, answer_id=answer, finals={nugget: S}, decided_by=boss
    )[0]
    # Sent again as stored (the page sends every label on show): left as it is, note too.
    again = nugget_adjudication_decide(
        task=data.task, answer_id=answer, finals={nugget: S}, decided_by=other, note="other"
    )
    assert again == []
    first.refresh_from_db()
    assert (first.decided_by.username, first.note, first.history) == ("boss", "", [])
    changed = nugget_adjudication_decide(
        task=data.task, answer_id=answer, finals={nugget: P}, decided_by=other, note="partly"
    )[0]
    changed.refresh_from_db()
    assert (changed.support, changed.note, changed.decided_by.username) == (P, "partly", "chief")
    assert [(h["support"], h["by"]) for h in changed.history] == [(S, boss.pk)]
    assert_scores(data.task, {("runA", "1", 1): P})


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("agreed", "only nuggets whose labels disagree are adjudicated"),
        ("machine only", "only nuggets whose labels disagree are adjudicated"),
        ("bad label", "a final label is support, partial_support or not_support"),
        ("other topic", "is not in this topic's list"),
        ("deleted", "is not in this topic's list"),
        ("other task", "is not one of"),
        ("long note", "the note has 2,001 characters"),
        ("nul", "NUL"),
        ("nothing", "choose a final label"),
    ],
)
def test_a_decision_that_cannot_stand_is_refused_and_nothing_is_stored_when_sent(
    case: str, message: str
) -> None:
    data = disputed_task()
    boss = UserFactory.create(username="boss", is_staff=True)
    n1, n2 = data.nuggets["1"], data.nuggets["2"]
    task, answer = data.task, data.answers[("runB", "1")].pk
    finals: dict[int, str] = {n1[0].pk: N, n1[1].pk: S}  # nugget 2 of runB is agreed: N N N
    note = ""
    if case == "machine only":
        answer, finals = data.answers[("runA", "2")].pk, {n2[1].pk: P}
    elif case == "bad label":
        finals = {n1[0].pk: "maybe"}
    elif case == "other topic":
        finals = {n1[0].pk: N, n2[0].pk: S}
    elif case == "deleted":
        nugget_delete(topic=data.topics["1"], nugget_id=n1[0].pk, user=boss)
        finals = {n1[0].pk: N}
    elif case == "other task":
        task = RetrievalTaskFactory.create(kind="rag", collection=data.task.collection)
        finals = {n1[0].pk: N}
    elif case == "long note":
        finals, note = {n1[0].pk: N}, "x" * 2001
    elif case == "nul":
        finals, note = {n1[0].pk: N}, "a\x00b"
    elif case == "nothing":
        finals = {}
    with pytest.raises(NuggetAdjudicationError, match=message):
        nugget_adjudication_decide(
            task=task, answer_id=answer, finals=finals, decided_by=boss, note=note
        )
    assert not NuggetAdjudication.objects.exists()


def test_a_machine_only_dispute_is_decided_when_the_organizer_counts_machines() -> None:
    data = disputed_task()
    boss = UserFactory.create(username="boss", is_staff=True)
    nugget_adjudication_decide(
        task=data.task,
        answer_id=data.answers[("runA", "2")].pk,
        finals={data.nuggets["2"][1].pk: P},
        decided_by=boss,
        with_machine=True,
    )
    assert_scores(data.task, {("runA", "2", 1): P})


def test_the_page_decides_by_form_post_and_opens_only_to_organizers(
    django_assert_max_num_queries,
) -> None:
    data = disputed_task()
    UserFactory.create(username="boss", is_staff=True)
    url = f"/nuggets/tasks/{data.task.pk}/adjudication/"
    client = Client()
    client.force_login(data.alice)
    assert client.get(url).status_code == 403
    client.force_login(UserFactory.create(username="boss2", is_staff=True))
    with django_assert_max_num_queries(14):
        page = client.get(url)
    assert page.status_code == 200
    text = page.content.decode()
    assert "Answer 1 of 2" in text
    assert "runA" not in text  # the page shows answers, never their run or team
    assert "team-runA" not in text
    n1 = data.nuggets["1"]
    answer = data.answers[("runA", "1")].pk
    bad = client.post(url, {"answer": answer, f"final-{n1[0].pk}": S})
    assert bad.status_code == 400
    assert "only nuggets whose labels disagree" in bad.content.decode()
    saved = client.post(f"{url}?state=undecided", {"answer": answer, f"final-{n1[1].pk}": S})
    assert saved.status_code == 302
    assert f"answer={data.answers[('runB', '1')].pk}" in saved["Location"]
    assert NuggetAdjudication.objects.get().support == S
    assert client.get(f"{url}?answer=99999999").status_code == 404
    assert client.get(f"{url}?answer=abc").status_code == 404
    other = RetrievalTaskFactory.create()
    assert client.get(f"/nuggets/tasks/{other.pk}/adjudication/").status_code == 404


def test_saving_a_second_decision_leaves_the_first_ones_note_when_the_page_resends_it() -> None:
    data = disputed_task()
    client = Client()
    client.force_login(UserFactory.create(username="boss", is_staff=True))
    url = f"/nuggets/tasks/{data.task.pk}/adjudication/"
    answer = data.answers[("runB", "1")].pk
    first, third = data.nuggets["1"][0].pk, data.nuggets["1"][2].pk
    client.post(url, {"answer": answer, f"final-{first}": N, "note": "bob is right"})
    page = client.get(f"{url}?answer={answer}")
    assert f'name="final-{first}" value="{N}" checked' in page.content.decode()
    # The form sends the first label again, as shown, with the second and an empty note.
    client.post(url, {"answer": answer, f"final-{first}": N, f"final-{third}": S, "note": ""})
    notes = dict(NuggetAdjudication.objects.values_list("nugget_id", "note"))
    assert notes == {first: "bob is right", third: ""}
    again = client.post(url, {"answer": answer, f"final-{first}": N}, follow=True)
    assert "Nothing changed" in again.content.decode()
