"""Qrels files and qrels built from judgments (evaluation/core/qrels.py)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaluation.core.qrels import (
    JudgmentRecord,
    QrelsEntry,
    QrelsFormatError,
    QrelsPolicy,
    qrels_format,
    qrels_from_judgments,
    qrels_grades,
    qrels_parse,
    qrels_sorted,
)
from kernel.core.qrels import MAX_LINE_CHARS


def test_parse_reads_tabs_spaces_and_crlf_when_mixed() -> None:
    text = "A.1\t0\t10\t3\r\nA.1 0 11 0\r\n\r\nA.2\t0\t7\t2\n"
    assert qrels_parse(text) == [
        QrelsEntry("A.1", "10", 3),
        QrelsEntry("A.1", "11", 0),
        QrelsEntry("A.2", "7", 2),
    ]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("A.1 0 10\n", 1, "expected 4 columns"),
        ("A.1 0 10 3\nA.1 0 11 H\n", 2, "not an integer"),
        ("A.1 0 10 7\n", 1, "outside 0-6"),
        ("A.1 0 10 3\nA.2 0 10 1\nA.1 0 10 2\n", 3, "repeated topic A.1 id 10"),
    ],
)
def test_parse_reports_line_numbered_problem_when_line_is_bad(
    text: str, line: int, message: str
) -> None:
    with pytest.raises(QrelsFormatError) as caught:
        qrels_parse(text)
    assert caught.value.problems[0][0] == line
    assert message in caught.value.problems[0][1]


ids = st.text(alphabet="abcdAB0123456789._", min_size=1, max_size=8)


@given(st.lists(st.tuples(ids, ids, st.integers(0, 6)), max_size=30))
def test_format_then_parse_gives_same_entries_when_any_entries(
    rows: list[tuple[str, str, int]],
) -> None:
    unique = list({(t, d): QrelsEntry(t, d, g) for t, d, g in rows}.values())
    for line_end in ("\n", "\r\n"):
        assert qrels_parse(qrels_format(unique, line_end=line_end)) == unique


def test_sorted_orders_topics_and_ids_naturally_when_numbers_differ_in_length() -> None:
    entries = [QrelsEntry("A.10", "5", 0), QrelsEntry("A.2", "100", 1), QrelsEntry("A.2", "99", 2)]
    assert [(e.topic, e.doc) for e in qrels_sorted(entries)] == [
        ("A.2", "99"),
        ("A.2", "100"),
        ("A.10", "5"),
    ]


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("answer", {"A.1": {"a": 2}}),
        ("formula", {"A.1": {"a": 2}}),
        ("openqa", {"A.1": {"a": 2, "b": 0, "c": 0}}),
    ],
)
def test_grades_treat_flag_codes_by_task_when_file_has_5_and_6(
    kind: str, expected: dict[str, dict[str, int]]
) -> None:
    entries = qrels_parse("A.1 0 a 2\nA.1 0 b 5\nA.1 0 c 6\n")
    assert qrels_grades(entries, kind=kind) == expected  # type: ignore[arg-type]


def record(
    item: str, source: str, grade: int | None, flag: str = "", hit: str = "", topic: str = "A.1"
) -> JudgmentRecord:
    return JudgmentRecord(topic, item, hit or item, source, grade, flag)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("precedence", "expected"),
    [
        (("adjudicated", "official", "dual"), 3),
        (("official", "dual"), 1),
        (("dual", "official"), 2),
        (("adjudicated", "dual"), 3),
    ],
)
def test_counting_judgment_follows_precedence_when_sources_disagree(
    precedence: tuple[str, ...], expected: int
) -> None:
    records = [record("10", "dual", 2), record("10", "official", 1), record("10", "adjudicated", 3)]
    build = qrels_from_judgments(records, kind="answer", policy=QrelsPolicy(precedence))  # type: ignore[arg-type]
    assert build.entries == [QrelsEntry("A.1", "10", expected)]


def test_dual_only_hit_is_left_out_when_dual_not_in_precedence() -> None:
    records = [record("10", "official", 2), record("11", "dual", 3)]
    build = qrels_from_judgments(
        records, kind="answer", policy=QrelsPolicy(("adjudicated", "official"))
    )
    assert build.entries == [QrelsEntry("A.1", "10", 2)]


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("answer", [QrelsEntry("A.1", "10", 2)]),
        (
            "openqa",
            [QrelsEntry("A.1", "10", 2), QrelsEntry("A.1", "11", 0), QrelsEntry("A.1", "12", 0)],
        ),
    ],
)
def test_flags_are_unjudged_in_task_1_and_grade_0_in_task_3_when_exported(
    kind: str, expected: list[QrelsEntry]
) -> None:
    records = [
        record("10", "official", 2),
        record("11", "official", None, "system_failure"),
        record("12", "official", None, "dont_know"),
    ]
    build = qrels_from_judgments(records, kind=kind)  # type: ignore[arg-type]
    assert build.entries == expected
    assert build.flagged == 2


def test_formula_item_takes_max_grade_of_judged_instances_when_instances_differ() -> None:
    records = [
        record("v7", "official", 1, hit="100"),
        record("v7", "official", 3, hit="101"),
        record("v7", "official", None, "dont_know", hit="102"),
        record("v8", "official", None, "system_failure", hit="103"),
    ]
    build = qrels_from_judgments(records, kind="formula")
    assert build.entries == [QrelsEntry("A.1", "v7", 3)]
    assert build.instance_entries == [QrelsEntry("A.1", "100", 1), QrelsEntry("A.1", "101", 3)]


def test_min_relevant_filter_drops_and_explains_when_topic_has_too_few_relevant() -> None:
    records = [
        record("1", "official", 3),
        record("2", "official", 2),
        record("3", "official", 2, topic="A.2"),
        record("4", "official", 1, topic="A.2"),
        record("5", "official", None, "dont_know", topic="A.3"),
    ]
    build = qrels_from_judgments(records, kind="answer", policy=QrelsPolicy(min_relevant=2))
    assert {e.topic for e in build.entries} == {"A.1"}
    assert [(d.topic, d.relevant) for d in build.dropped] == [("A.2", 1), ("A.3", 0)]
    assert build.dropped[0].reason == "1 H+M-relevant item, fewer than 2"


def test_export_order_is_deterministic_when_records_arrive_shuffled() -> None:
    records = [record(str(i), "official", i % 4, topic=f"A.{i % 3 + 1}") for i in range(20)]
    first = qrels_format(qrels_from_judgments(records, kind="answer").entries)
    again = qrels_format(qrels_from_judgments(list(reversed(records)), kind="answer").entries)
    assert first == again
    assert first.splitlines()[0] == "A.1\t0\t0\t0"


def test_grade_4_is_a_grade_and_5_6_stay_flags_when_a_task_uses_0_to_4() -> None:
    entries = qrels_parse("A.1 0 a 4\nA.1 0 b 5\nA.1 0 c 6\n")
    assert qrels_grades(entries, kind="answer") == {"A.1": {"a": 4}}
    assert qrels_grades(entries, kind="openqa") == {"A.1": {"a": 4, "b": 0, "c": 0}}


def test_min_relevant_counts_grade_at_least_the_task_level_when_level_is_1() -> None:
    records = [
        record("1", "official", 1),
        record("2", "official", 1),
        record("3", "official", 1, topic="A.2"),
        record("4", "official", 0, topic="A.2"),
    ]
    policy = QrelsPolicy(min_relevant=2, relevant_from=1)
    build = qrels_from_judgments(records, kind="answer", policy=policy)
    assert {e.topic for e in build.entries} == {"A.1"}
    assert build.dropped[0].reason == "1 relevant (≥ 1) item, fewer than 2"
    assert policy.as_dict()["relevant_from"] == 1
    assert "relevant_from" not in QrelsPolicy(min_relevant=2).as_dict()  # ARQMath's, unchanged


def test_a_line_past_the_limit_is_refused_by_number_without_being_quoted_when_huge() -> None:
    # One 10 MB "line" (a file with no line ends): refused as a line, not split or echoed.
    huge = "A.1 0 10 " + "9" * 10_000_000
    with pytest.raises(QrelsFormatError) as caught:
        qrels_parse(f"A.1 0 11 1\n{huge}\nA.1 0 12 H\n")
    assert caught.value.problems == [
        (2, f"longer than {MAX_LINE_CHARS:,} characters"),
        (3, "grade 'H' is not an integer"),
    ]
    assert len(str(caught.value)) < 200
    # A line at the limit is read as any other.
    at_limit = "A.1 0 " + "d" * (MAX_LINE_CHARS - 8) + " 1"
    assert len(at_limit) == MAX_LINE_CHARS
    assert qrels_parse(at_limit)[0].grade == 1
