"""Disputes, undecided disputes and shared hits: one definition each, the same figure on the
adjudication page (its list, states, topics and agreement table) and on the agreement page,
checked against a hand count; and no "with the final grades" figure before a decision."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from assessment.models import Assignment
from assessment.services.adjudication import adjudication_decide
from tests.factories import AssignmentFactory, JudgmentFactory, TopicFactory, UserFactory
from tests.integration.test_adjudication import dual_topic

pytestmark = pytest.mark.django_db

DK, SF = "dont_know", "system_failure"
# (official, dual) per hit. Hand count, topic A: disputes h1 h3 h4 h5 h6 (five; h4 and h5 differ
# by a flag only), shared (both graded) h0 h1 h2 h3 h6 (five). Topic B: disputes h1 h2 (two),
# shared h0 h1 h3 (three). The task: 7 disputes, 8 shared hits.
TOPIC_A = [(3, 3), (2, 1), (1, 1), (0, 2), (2, DK), (SF, DK), (3, 0)]
TOPIC_B = [(1, 1), (0, 3), (DK, 2), (2, 2)]


@pytest.fixture
def organizer(client):  # type: ignore[no-untyped-def]
    client.force_login(UserFactory.create(username="boss", is_staff=True))
    return client


def _change_rows(html: str) -> dict[str, tuple[int, int, str]]:
    """ "How adjudication changed the agreement": topic -> (shared, undecided, assessors cell)."""
    section = html[html.index('id="agreement-change"') :]
    rows = re.findall(
        r'<th scope="row">([^<]+)</th>\s*<td class="num">(\d+)</td>\s*'
        r'<td class="num">(?:<strong>)?(\d+)(?:</strong>)?</td>.*?<td>(.*?)</td>\s*</tr>',
        section,
        re.DOTALL,
    )
    return {topic: (int(shared), int(undecided), cell) for topic, shared, undecided, cell in rows}


def _states(html: str) -> dict[str, int]:
    return {k: int(n) for k, n in re.findall(r"(Undecided|Decided|All) <span>(\d+)</span>", html)}


def test_both_pages_agree_with_a_hand_count_when_a_dual_assessed_task_is_adjudicated(
    organizer,
) -> None:  # type: ignore[no-untyped-def]
    a, hits_a = dual_topic(TOPIC_A)
    b, _ = dual_topic(TOPIC_B, topic=TopicFactory.create(task=a.task))
    task = a.task
    adjudication = reverse("assessment:organize_adjudication", args=[task.pk])
    agreement = reverse("assessment:organize_agreement", args=[task.pk])

    html = organizer.get(adjudication).content.decode()
    assert _states(html) == {"Undecided": 7, "Decided": 0, "All": 7}
    assert "7 undecided disputes</h2>" in html
    rows = _change_rows(html)
    assert {t: r[:2] for t, r in rows.items()} == {
        a.number: (5, 5),
        b.number: (3, 2),
        "All topics": (8, 7),
    }
    # Nothing decided: no assessor is compared with final grades (no "1.000" reading as perfect).
    assert all("nothing decided yet" in cell for *_, cell in rows.values())
    section = html[html.index('id="agreement-change"') :]
    assert "1.000" not in section
    shared = re.search(
        r'id="shared-hits"><strong>(\d+)</strong>', organizer.get(agreement).content.decode()
    )
    assert shared is not None
    assert int(shared[1]) == 8

    adjudication_decide(hit=hits_a[1], grade=2, decided_by=UserFactory.create(is_staff=True))
    html = organizer.get(adjudication).content.decode()
    assert _states(html) == {"Undecided": 6, "Decided": 1, "All": 7}
    assert "6 undecided disputes</h2>" in html
    rows = _change_rows(html)
    assert {t: r[:2] for t, r in rows.items()} == {
        a.number: (5, 4),
        b.number: (3, 2),
        "All topics": (8, 6),
    }
    assert "nothing decided yet" not in rows[a.number][2]
    assert "nothing decided yet" in rows[b.number][2]
    assert "nothing decided yet" not in rows["All topics"][2]
    # The per-topic table and the list, narrowed to grade gaps of 2 or more: h3, h6 and B's h1.
    narrowed = organizer.get(adjudication, {"difference": 2}).content.decode()
    assert "3 undecided disputes <small>of 6 in the task</small>" in narrowed


def test_a_topic_without_disputes_shows_no_figure_with_final_grades_when_all_agree(
    organizer,
) -> None:  # type: ignore[no-untyped-def]
    topic, _ = dual_topic([(3, 3), (1, 1), (0, 0)])
    html = organizer.get(
        reverse("assessment:organize_adjudication", args=[topic.task.pk])
    ).content.decode()
    rows = _change_rows(html)
    assert rows[topic.number][:2] == (3, 0)
    assert "no disputes" in rows[topic.number][2]


def test_agreement_page_gives_the_peoples_count_beside_its_own_when_a_machine_judge_grades(
    organizer,
) -> None:  # type: ignore[no-untyped-def]
    topic, hits = dual_topic([(3, 3), (2, DK), (1, 0)])  # shared by the people: h0 and h2
    machine = AssignmentFactory.create(
        topic=topic, assessor=UserFactory.create(), purpose=Assignment.Purpose.MACHINE
    )
    for hit in hits:  # the machine makes h1 shared as well (with the official grade)
        JudgmentFactory.create(assignment=machine, hit=hit, grade=2)
    html = organizer.get(
        reverse("assessment:organize_agreement", args=[topic.task.pk])
    ).content.decode()
    line = re.search(r'<p id="shared-hits">(.*?)</p>', html, re.DOTALL)
    assert line is not None
    counts = [int(n) for n in re.findall(r"<strong>(\d+)</strong>", line[1])]
    assert counts == [3, 2]
    adjudication = organizer.get(
        reverse("assessment:organize_adjudication", args=[topic.task.pk])
    ).content.decode()
    assert _change_rows(adjudication)["All topics"][0] == 2
