"""The machine judge grades file (assessment/core/judge_grades.py): TREC qrels or JSONL,
every problem with file, line and field."""

import gzip
import json

import pytest

from assessment.core.judge_grades import (
    JudgeGrade,
    JudgeGradesError,
    judge_grades_decode,
    judge_grades_parse,
)


def parse(text: str, file_format: str = "auto", top: int = 3) -> tuple[str, list[JudgeGrade]]:
    return judge_grades_parse(
        text, file_name="judge.txt", file_format=file_format, top=top, max_rationale=20
    )


def problems(text: str, file_format: str = "auto", top: int = 3) -> list[str]:
    with pytest.raises(JudgeGradesError) as caught:
        parse(text, file_format, top)
    return caught.value.messages


def test_qrels_are_read_with_their_lines_when_the_file_is_trec_qrels() -> None:
    chosen, grades = parse("A.1 0 101 3\nA.1\tQ0\t102\t0\r\n\nA.2 0 doc-7 1\n")
    assert chosen == "qrels"
    assert grades == [
        JudgeGrade("A.1", "101", 3, "", 1),
        JudgeGrade("A.1", "102", 0, "", 2),
        JudgeGrade("A.2", "doc-7", 1, "", 4),
    ]
    assert [g.line for g in grades] == [1, 2, 4]


def test_jsonl_accepts_each_id_field_and_a_rationale_when_lines_are_objects() -> None:
    lines = [
        {"topic": "A.1", "docno": "d1", "grade": 2, "rationale": " on topic "},
        {"qid": 301, "doc_id": "d2", "grade": "1", "model": "x"},
        {"topic": "A.1", "item": 7, "grade": 0.0},
        {"query_id": "A.2", "post_id": 8, "grade": 3, "rationale": None},
        {"topic": "A.2", "docno": "d9", "doc_id": "d9", "grade": 1},
    ]
    chosen, grades = parse("\n".join(json.dumps(line) for line in lines))
    assert chosen == "jsonl"
    assert [(g.topic, g.item, g.grade, g.rationale) for g in grades] == [
        ("A.1", "d1", 2, "on topic"),
        ("301", "d2", 1, ""),
        ("A.1", "7", 0, ""),
        ("A.2", "8", 3, ""),
        ("A.2", "d9", 1, ""),
    ]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('{"topic": "A.1", "grade": 1}', "judge.txt line 2, docno: missing: give one of docno"),
        ('{"docno": "d", "grade": 1}', "judge.txt line 2, topic: missing"),
        ('{"topic": "A.1", "docno": "d"}', "judge.txt line 2, grade: missing"),
        ('{"topic": "A.1", "docno": "d", "grade": 4}', "line 2, grade: grade 4 is outside 0-3"),
        ('{"topic": "A.1", "docno": "d", "grade": -1}', "line 2, grade: grade -1 is outside"),
        ('{"topic": "A.1", "docno": "d", "grade": 1.5}', "line 2, grade: 1.5 is not an integer"),
        ('{"topic": "A.1", "docno": "d", "grade": true}', "line 2, grade: True is not an integer"),
        ('{"topic": "A.1", "docno": "d", "grade": "high"}', "line 2, grade: 'high' is not an"),
        ('{"topic": "A.1", "docno": ["d"], "grade": 1}', "line 2, docno: must be a string or an"),
        ('{"topic": "A.1", "docno": "a b", "grade": 1}', "line 2, docno: 'a b' is not an id"),
        ('{"topic": "A.1", "docno": "d", "doc_id": "e", "grade": 1}', "docno and doc_id differ"),
        ('{"topic": "A.1", "docno": "d", "grade": 1, "rationale": 5}', "rationale: must be a str"),
        (
            '{"topic": "A.1", "docno": "d", "grade": 1, "rationale": "' + "x" * 21 + '"}',
            "line 2, rationale: has 21 characters (at most 20)",
        ),
        ('{"topic": "A.1", "docno": "d", "grade": 1', "judge.txt line 2, json: Expecting"),
        ("[1, 2]", "judge.txt line 2, json: expected an object"),
        ('{"topic": "A.1", "docno": "ok", "grade": 1}', "line 2, docno: repeated topic 'A.1'"),
    ],
)
def test_jsonl_problem_names_file_line_and_field_when_a_line_is_bad(
    line: str, expected: str
) -> None:
    text = '{"topic": "A.1", "docno": "ok", "grade": 1}\n' + line + "\n"
    found = problems(text, "jsonl")
    assert len(found) == 1
    assert expected in found[0], found


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("A.1 0 102", "judge.txt line 2, columns: expected 4 columns, found 3"),
        ("A.1 0 102 H", "judge.txt line 2, grade: grade 'H' is not an integer"),
        ("A.1 0 102 4", "judge.txt line 2, grade: grade 4 is outside 0-3"),
        ("A.1 0 101 2", "judge.txt line 2, id: repeated topic A.1 id 101"),
    ],
)
def test_qrels_problem_names_file_line_and_field_when_a_line_is_bad(
    line: str, expected: str
) -> None:
    assert problems("A.1 0 101 1\n" + line + "\n") == [expected]


def test_every_problem_is_reported_when_several_lines_are_bad() -> None:
    line = '{{"topic": "A.1", "docno": "d{}", "grade": 9}}'
    text = "\n".join(line.format(n) for n in range(3))
    assert [m.split(",")[0] for m in problems(text)] == [
        "judge.txt line 1",
        "judge.txt line 2",
        "judge.txt line 3",
    ]


def test_binary_scale_bounds_grades_when_top_is_one() -> None:
    assert "grade 2 is outside 0-1" in problems("A.1 0 d 2\n", top=1)[0]


def test_empty_file_is_refused_when_it_holds_no_grades() -> None:
    assert problems("\n\n") == ["judge.txt, file: no grades in the file"]


def test_format_given_wins_over_detection_when_a_qrels_file_is_read_as_jsonl() -> None:
    assert "json" in problems("A.1 0 d 2\n", "jsonl")[0]
    assert "format: must be one of" in problems("A.1 0 d 2\n", "csv")[0]


def test_gzip_and_byte_order_mark_are_read_when_the_file_is_packed() -> None:
    data = gzip.compress("\ufeffA.1 0 d 2\n".encode())
    text = judge_grades_decode(data, file_name="j.gz", max_bytes=100)
    assert parse(text)[1] == [JudgeGrade("A.1", "d", 2, "", 1)]


def test_decode_names_the_line_when_a_byte_is_not_utf8() -> None:
    with pytest.raises(JudgeGradesError) as caught:
        judge_grades_decode(b"A.1 0 d 2\nA.1 0 \xff 1\n", file_name="j.txt", max_bytes=100)
    assert caught.value.messages == ["j.txt line 2, encoding: byte 0xff is not UTF-8"]


def test_decode_refuses_a_file_when_it_is_larger_than_the_bound() -> None:
    with pytest.raises(JudgeGradesError, match="larger than 10 bytes"):
        judge_grades_decode(gzip.compress(b"A.1 0 d 2\n" * 5), file_name="j.gz", max_bytes=10)


def test_a_jsonl_line_past_the_limit_is_refused_by_number_before_it_is_decoded() -> None:
    # max_rationale=20: a line holds at most 6 x 20 characters of rationale and 4,096 more.
    huge = json.dumps({"topic": "A.1", "docno": "d2", "grade": 1, "rationale": "x" * 1_000_000})
    text = '{"topic": "A.1", "docno": "d1", "grade": 1}\n' + huge + "\n"
    assert problems(text, "jsonl") == [
        "judge.txt line 2, json: line longer than 4,216 characters (a rationale has at most 20)"
    ]
    fits = json.dumps({"topic": "A.1", "docno": "d2", "grade": 1, "rationale": "\u00e9" * 20})
    assert len(fits) < 4216
    assert len(parse(text.replace(huge, fits), "jsonl")[1]) == 2
