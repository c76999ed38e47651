"""Which task a person's name for it means: a task's name first, then a kind naming the
campaign's only task of that kind; several of that kind is an error listing them."""

import pytest

from collection.core.task_names import (
    TaskNameError,
    TaskRef,
    choose_task,
    kind_of,
    leading_task,
    task_name_problem,
)

TASKS = [
    TaskRef(1, "task1", "answer"),
    TaskRef(2, "covid-docs", "document"),
    TaskRef(3, "news", "document"),
    TaskRef(4, "formula", "formula"),
]


@pytest.mark.parametrize(
    ("wanted", "pk"),
    [
        ("task1", 1),  # a name that is also an ARQMath spelling: the name wins
        ("answer", 1),
        ("1", 1),
        ("covid-docs", 2),
        (" news ", 3),
        ("task2", 4),
        ("Formula", 4),  # kinds are case-blind
    ],
)
def test_choose_task_finds_the_named_task_or_the_only_one_of_a_kind(wanted: str, pk: int) -> None:
    assert choose_task(TASKS, wanted, campaign="C").pk == pk


def test_choose_task_lists_the_candidates_when_a_kind_names_several() -> None:
    with pytest.raises(TaskNameError) as raised:
        choose_task(TASKS, "document", campaign="C")
    assert str(raised.value) == (
        "campaign 'C' has 2 document tasks: name one of them "
        "(covid-docs (document), news (document))"
    )


def test_choose_task_says_what_exists_when_nothing_matches() -> None:
    with pytest.raises(TaskNameError, match=r"no openqa task"):
        choose_task(TASKS, "task3", campaign="C")
    with pytest.raises(TaskNameError, match=r"no task named 'nope' \(tasks: covid-docs"):
        choose_task(TASKS, "nope", campaign="C")
    with pytest.raises(TaskNameError, match=r"\(tasks: none\)"):
        choose_task([], "nope", campaign="C")


def test_kind_of_and_name_rules() -> None:
    assert kind_of("TASK3") == "openqa"
    assert kind_of("docs") is None
    assert task_name_problem("covid-docs_2") is None
    assert task_name_problem("") is not None
    assert task_name_problem("a" * 41) is not None
    for hostile in ("a b", "a/b", "é", "<script>", "a\x00"):
        assert "not a short name" in (task_name_problem(hostile) or "")


@pytest.mark.parametrize(
    ("name", "found"),
    [
        ("T-a2022-main-run-auto-both-P", ("a2022-main", 2)),  # a name holding "-", longest
        ("T-a2022-run-auto-both-P", ("a2022", 1)),
        ("T-task1-run-auto-both-P", ("task1", 1)),  # a kind, resolved by choose_task
        ("T-other-run-auto-both-P", None),
    ],
)
def test_leading_task_takes_a_tasks_name_before_a_kind(
    name: str, found: tuple[str, int] | None
) -> None:
    words = name.split("-")[1:]
    assert leading_task(words, ["a2022", "a2022-main", "task9"]) == found
