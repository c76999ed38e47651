"""The organizer's adjudication page: two panes, every verdict, filters, paging,
next undecided, counts per topic, the change in agreement, bad parameters, conflicts and the
number of queries. The test client is a browser without JavaScript: everything works by
links and a plain form post."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from assessment.models import Adjudication, Assignment
from assessment.selectors.adjudication import (
    DisputeFilter,
    agreement_changes,
    decision_token,
    task_disputes,
)
from assessment.selectors.guidelines import guidelines_current
from assessment.services.adjudication import adjudication_decide
from assessment.services.judging import judgment_submit
from tests.factories import AssignmentFactory, TopicFactory, UserFactory
from tests.integration.test_adjudication import dual_topic
from tests.integration.test_judging_pools import answer_pool, formula_pool

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer(client):  # type: ignore[no-untyped-def]
    client.force_login(UserFactory.create(username="boss", is_staff=True))
    return client


def url_of(task, **query) -> str:  # type: ignore[no-untyped-def]
    base = reverse("assessment:organize_adjudication", args=[task.pk])
    return base + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def judge_dual(pool, grades, *, comments=("", "")):  # type: ignore[no-untyped-def]
    """An official (alice) and a dual (bob) assessor judge the pool's first hit of each item:
    ``grades`` is a list of (alice, bob) grades or flags, through the judging service."""
    alice = UserFactory.create(username="alice")
    bob = UserFactory.create(username="bob")
    official = AssignmentFactory.create(topic=pool.topic, assessor=alice)
    dual = AssignmentFactory.create(topic=pool.topic, assessor=bob, purpose="dual")
    for hits, pair in zip(pool.hits, grades, strict=True):
        for assignment, value, comment in zip((official, dual), pair, comments, strict=True):
            flag = value if isinstance(value, str) else ""
            judgment_submit(
                assignment=assignment,
                hit=hits[0],
                assessor=assignment.assessor,
                grade=None if flag else value,
                flag=flag,
                comment=comment or ("cannot tell" if flag else ""),
            )
    return official, dual


def test_page_shows_topic_post_and_every_verdict_when_a_dispute_is_open(organizer) -> None:
    pool = answer_pool(items=2)
    judge_dual(pool, [(3, 1), (2, 2)], comments=("Exactly what was asked", "<b>Only</b> a hint"))
    html = organizer.get(url_of(pool.topic.task)).content.decode()
    # Left: the topic; right: the post, rendered by the judging page's selectors.
    assert pool.topic.title in html
    assert "Why is" in html  # the topic's question
    assert "squares</em> are nonnegative" in html
    assert 'data-key-thread="post"' in html
    assert 'target="_blank" rel="noopener"' in html
    # Both verdicts, named and labelled, with their comments (escaped: hostile text).
    assert re.search(r"<strong>alice</strong> <span class=\"purpose purpose-official\">", html)
    assert re.search(r"<strong>bob</strong> <span class=\"purpose purpose-dual\">", html)
    assert "3 · High" in html
    assert "1 · Low" in html
    assert "Exactly what was asked" in html
    assert "&lt;b&gt;Only&lt;/b&gt; a hint" in html
    # The task's grades with their keys, the key legend, one dispute of one.
    assert re.findall(r'name="grade" value="(\d)"', html) == ["3", "2", "1", "0"]
    assert "<kbd>h</kbd>" in html
    assert 'id="adjudication-keys"' in html
    assert "Dispute <b data-position>1</b> of 1" in html
    assert '"3": "3", "h": "3"' in html  # the keys the script reads


def test_formula_dispute_highlights_query_and_candidate_formula_when_shown(organizer) -> None:
    pool = formula_pool(items=1, instances=2)
    judge_dual(pool, [(3, 0)])
    html = organizer.get(url_of(pool.topic.task)).content.decode()
    assert 'class="qf-label">Query formula' in html
    assert "\\|A\\|_2=\\sqrt{\\rho(A^TA)}" in html
    assert "Candidate formula" in html
    # The candidate instance is highlighted inside the post, as on the judging page.
    formula_id = pool.hits[0][0].formula_id
    assert re.search(rf'class="math-container hit-formula" id="{formula_id}"', html)


def test_paging_lists_disputes_with_i_of_n_when_several_are_open(organizer) -> None:
    topic, hits = dual_topic([(0, 3), (1, 3), (2, 2), (3, 1)])
    task = topic.task
    html = organizer.get(url_of(task)).content.decode()
    assert "Dispute <b data-position>1</b> of 3" in html
    assert f'data-hit="{hits[0].pk}"' in html
    assert html.count('class="adj-tile') == 3  # the list to jump
    html = organizer.get(url_of(task, hit=hits[1].pk)).content.decode()
    assert "Dispute <b data-position>2</b> of 3" in html
    assert f"hit={hits[0].pk}" in re.search(r'data-nav="prev" href="([^"]+)"', html)[1]  # type: ignore[index]
    assert f"hit={hits[3].pk}" in re.search(r'data-nav="next" href="([^"]+)"', html)[1]  # type: ignore[index]


def test_save_moves_on_to_the_next_undecided_dispute_when_posted(organizer) -> None:
    topic, hits = dual_topic([(0, 3), (1, 3), (0, 2)])
    task = topic.task
    adjudication_decide(hit=hits[1], grade=2, decided_by=UserFactory.create(is_staff=True))
    response = organizer.post(
        url_of(task, state="all", hit=hits[0].pk),
        {"hit": hits[0].pk, "grade": "1", "note": "", "seen": "0"},
    )
    assert response.status_code == 302
    assert f"hit={hits[2].pk}" in response["Location"]  # hits[1] is decided: skipped
    assert "state=all" in response["Location"]
    # The last one wraps around to nothing left: the page stays on it and says so.
    response = organizer.post(url_of(task), {"hit": hits[2].pk, "grade": "2", "seen": "0"})
    assert f"hit={hits[2].pk}" in response["Location"]
    page = organizer.get(response["Location"]).content.decode()
    assert "Every dispute in this filter is decided." in page
    assert "Nothing left undecided" in page
    assert dict(Adjudication.objects.values_list("hit_id", "grade")) == {
        hits[0].pk: 1,
        hits[1].pk: 2,
        hits[2].pk: 2,
    }


def test_next_undecided_wraps_around_when_the_rest_is_decided(organizer) -> None:
    topic, hits = dual_topic([(0, 3), (1, 3), (0, 2)])
    adjudication_decide(hit=hits[2], grade=2, decided_by=UserFactory.create(is_staff=True))
    html = organizer.get(url_of(topic.task, state="all", hit=hits[1].pk)).content.decode()
    link = re.search(r'data-nav="undecided" href="([^"]+)"', html)
    assert link is not None
    assert f"hit={hits[0].pk}" in link[1]


def test_filters_and_counts_per_topic_follow_the_query_when_chosen(organizer) -> None:
    topic, hits = dual_topic([(0, 3), (1, 2), (2, "dont_know")])
    other, _ = dual_topic([(0, 2)], topic=TopicFactory.create(task=topic.task))
    adjudication_decide(hit=hits[0], grade=1, decided_by=UserFactory.create(is_staff=True))
    task = topic.task

    def counts(html: str) -> dict[str, tuple[int, ...]]:
        rows = re.findall(
            r'<td><a href="[^"]+">([^<]+)</a></td><td class="num">(\d+)</td><td class="num">(\d+)'
            r'</td><td class="num">(?:<strong>)?(\d+)',
            html,
        )
        return {t: tuple(int(n) for n in ns) for t, *ns in rows}

    html = organizer.get(url_of(task)).content.decode()
    # By default every dispute counts, the flag-only difference too.
    assert counts(html) == {topic.number: (3, 1, 2), other.number: (1, 0, 1)}
    assert "Undecided <span>3</span>" in html
    assert "Decided <span>1</span>" in html
    html = organizer.get(url_of(task, difference=1)).content.decode()
    assert counts(html) == {topic.number: (2, 1, 1), other.number: (1, 0, 1)}
    assert "Undecided <span>2</span>" in html
    assert "of 3 in the task" in html  # the narrowed list against the whole
    html = organizer.get(url_of(task, difference=2, state="all")).content.decode()
    assert counts(html) == {topic.number: (1, 1, 0), other.number: (1, 0, 1)}
    html = organizer.get(url_of(task, topic=other.number, state="all")).content.decode()
    assert html.count('class="adj-tile') == 1
    html = organizer.get(url_of(task, state="decided")).content.decode()
    assert f'data-hit="{hits[0].pk}"' in html
    assert html.count('class="adj-tile') == 1


def test_agreement_change_shows_kappa_before_and_with_final_grades_when_decided(
    organizer,
) -> None:
    # alice 3 2 1 0 against bob 3 1 1 2: kappa 1/3 (p_o 1/2, p_e 1/4). The organizer sides
    # with alice on both disputes: alice agrees fully with the final grades, bob stays at 1/3.
    topic, hits = dual_topic([(3, 3), (2, 1), (1, 1), (0, 2)], names=("alice", "bob"))
    task = topic.task
    guidelines = guidelines_current(task=task)
    [before], overall = agreement_changes(task_disputes(task=task), guidelines)
    assert before.before.value == pytest.approx(1 / 3)
    assert (before.shared, before.undecided) == (4, 2)
    # Undecided disputes have no final grade yet: each assessor is compared on the two hits
    # they agree on (grades 3 and 1), kappa 1.
    assert [a.kappa.value for a in before.assessors] == [1.0, 1.0]
    boss = UserFactory.create(is_staff=True)
    adjudication_decide(hit=hits[1], grade=2, decided_by=boss)
    adjudication_decide(hit=hits[3], grade=0, decided_by=boss)
    [after], overall = agreement_changes(task_disputes(task=task), guidelines)
    assert after.before.value == pytest.approx(1 / 3)
    alice, bob = after.assessors
    assert (alice.assessor, alice.kappa.value, alice.kappa.n) == ("alice", 1.0, 4)
    assert (bob.assessor, bob.purposes) == ("bob", "dual")
    assert bob.kappa.value == pytest.approx(1 / 3)
    assert overall.undecided == 0
    assert overall.before.value == pytest.approx(1 / 3)
    # binary at ARQMath's level 2: alice 1 1 0 0, bob 1 0 0 1 -> p_o 1/2, p_e 1/2: kappa 0.
    assert bob.kappa_binary.value == pytest.approx(0.0)
    html = organizer.get(url_of(task, state="all")).content.decode()
    section = html[html.index('id="agreement-change"') :]
    assert "0.333" in section
    assert "1.000" in section
    assert "All topics" in section


def test_agreement_change_uses_the_task_scale_when_it_is_binary(organizer) -> None:
    from assessment.services.guidelines import guidelines_save
    from tests.integration.test_guidelines_services import binary_scale

    topic, _hits = dual_topic([(1, 1), (1, 0), (0, 0), (0, 1)])
    guidelines_save(task=topic.task, instructions="", scale=binary_scale(), relevance_level=1)
    guidelines = guidelines_current(task=topic.task)
    [change], _ = agreement_changes(task_disputes(task=topic.task), guidelines)
    # 2 of 4 agree, marginals 1/2 each: p_e 1/2, kappa 0; binary at level 1 is the same.
    assert change.before.value == pytest.approx(0.0)
    assert change.before_binary.value == pytest.approx(0.0)
    html = organizer.get(url_of(topic.task)).content.decode()
    assert re.findall(r'name="grade" value="(\d)"', html) == ["1", "0"]
    assert "over the task&#x27;s 2 grades" in html or "over the task's 2 grades" in html


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"difference": "lots"}, "Ignored difference: must be a whole number in ASCII digits"),
        ({"difference": "9"}, "Ignored difference: must be between 0 and 3"),
        ({"difference": "-1"}, "Ignored difference"),
        ({"difference": "\u00b9"}, "Ignored difference"),  # superscript one: isdigit() is true
        ({"difference": "\u0663"}, "Ignored difference"),  # Arabic-Indic three: int() reads it
        ({"difference": "1_0"}, "Ignored difference"),
        ({"state": "open"}, "Ignored state: expected one of undecided, decided, all"),
        ({"topic": "A." + "9" * 60}, "Ignored topic: not a topic number"),
        ({"topic": "A.1\x00"}, "Ignored topic"),
    ],
)
def test_bad_filter_values_are_ignored_with_a_message_when_given(organizer, query, message) -> None:
    topic, _ = dual_topic([(0, 3)])
    response = organizer.get(url_of(topic.task), query)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert "Dispute <b data-position>1</b> of 1" in response.content.decode()


@pytest.mark.parametrize("hit", ["abc", "99999999999999999999", "\u0663", "-4", "1.0", " 7"])
def test_bad_hit_parameter_answers_404_not_500_when_given(organizer, hit) -> None:
    topic, _ = dual_topic([(0, 3)])
    assert organizer.get(url_of(topic.task), {"hit": hit}).status_code == 404
    assert organizer.post(url_of(topic.task), {"hit": hit, "grade": "2"}).status_code == 404
    assert not Adjudication.objects.exists()


def test_a_hit_that_is_no_dispute_answers_404_when_asked_for(organizer) -> None:
    topic, [agreed] = dual_topic([(2, 2)])
    assert organizer.get(url_of(topic.task), {"hit": agreed.pk}).status_code == 404


@pytest.mark.parametrize(
    ("posted", "message"),
    [
        ({"grade": "high"}, "grade: must be a whole number in ASCII digits, not &#x27;high&#x27;"),
        ({"grade": ""}, "choose a final grade: 0, 1, 2 or 3"),
        ({"grade": "4"}, "grade: must be between 0 and 3"),
        ({"grade": "2", "note": "n" * 5001}, "the note has 5,001 characters (at most 5,000)"),
        ({"grade": "2", "note": "a\x00b"}, "the note contains a NUL character"),
    ],
)
def test_a_refused_save_keeps_the_page_and_says_why_when_values_are_bad(
    organizer, posted, message
) -> None:
    topic, [hit] = dual_topic([(0, 3)])
    response = organizer.post(url_of(topic.task), {"hit": hit.pk, "seen": "0", **posted})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert f'data-hit="{hit.pk}"' in response.content.decode()
    assert not Adjudication.objects.exists()


def test_a_conflicting_save_is_refused_and_shows_the_other_decision_when_posted(
    organizer,
) -> None:
    topic, [hit] = dual_topic([(0, 3)])
    ben = UserFactory.create(username="ben", is_staff=True)
    adjudication_decide(hit=hit, grade=1, decided_by=ben, seen=0)
    response = organizer.post(
        url_of(topic.task), {"hit": hit.pk, "grade": "3", "note": "mine", "seen": "0"}
    )
    assert response.status_code == 409
    html = response.content.decode()
    assert "ben decided this hit while you were looking at it" in html
    assert "It is now Low (1)" in html
    assert 'value="3" checked' in html
    assert ">mine</textarea>" in html
    token = decision_token(Adjudication.objects.get(hit=hit).decided_at)
    assert f'name="seen" value="{token}"' in html
    assert Adjudication.objects.get(hit=hit).grade == 1
    # Saving again, having seen ben's decision, replaces it.
    response = organizer.post(
        url_of(topic.task), {"hit": hit.pk, "grade": "3", "note": "mine", "seen": str(token)}
    )
    assert response.status_code == 302
    assert Adjudication.objects.get(hit=hit).grade == 3


def test_a_repeated_save_is_stored_once_when_the_form_is_posted_twice(organizer) -> None:
    topic, [hit] = dual_topic([(0, 3)])
    form = {"hit": hit.pk, "grade": "2", "note": "checked", "seen": "0"}
    assert organizer.post(url_of(topic.task), form).status_code == 302
    first = Adjudication.objects.get(hit=hit).decided_at
    assert organizer.post(url_of(topic.task), form).status_code == 302  # a double click
    assert Adjudication.objects.get(hit=hit).decided_at == first


def test_empty_page_offers_other_lists_when_nothing_is_undecided(organizer) -> None:
    topic, [hit] = dual_topic([(0, 3)])
    adjudication_decide(hit=hit, grade=3, decided_by=UserFactory.create(is_staff=True))
    html = organizer.get(url_of(topic.task)).content.decode()
    assert "No undecided disputes" in html
    assert "Decided <span>1</span>" in html


def test_page_makes_a_bounded_number_of_queries_whatever_the_number_of_disputes(
    organizer, django_assert_max_num_queries
) -> None:
    topic, _ = dual_topic([(0, 3)] * 3)
    for _ in range(4):
        dual_topic([(1, 3), (0, 2), (2, "dont_know")] * 5, topic=None)
    other = TopicFactory.create(task=topic.task)
    _, hits = dual_topic([(0, 3)] * 20, topic=other)
    with django_assert_max_num_queries(10):
        assert organizer.get(url_of(topic.task, state="all")).status_code == 200
    with django_assert_max_num_queries(10):
        assert organizer.get(url_of(topic.task, hit=hits[7].pk)).status_code == 200
    with django_assert_max_num_queries(15):  # the save, then where to go next
        response = organizer.post(url_of(topic.task), {"hit": hits[7].pk, "grade": "2"})
        assert response.status_code == 302


def test_judgments_of_a_previous_assessor_count_when_the_topic_was_continued(organizer) -> None:
    """After a continue-move the official line's judgments are the new assessor's work: a
    dispute with the dual assessor stays a dispute, named after who judged."""
    from assessment.services.assignments import assignment_move

    topic, [_hit] = dual_topic([(0, 3)], names=("carl", "dora"))
    official = Assignment.objects.get(topic=topic, purpose="official")
    assignment_move(
        assignment=official,
        assessor=UserFactory.create(username="erin"),
        moved_by=None,
        handover="continue",
    )
    [dispute] = task_disputes(task=topic.task).disputes
    assert [v.assessor for v in dispute.verdicts] == ["carl", "dora"]
    assert DisputeFilter().shows(dispute)
    assert organizer.get(url_of(topic.task)).status_code == 200
