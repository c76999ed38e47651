"""Document collection parser, JSONL: id, title, body and metadata fields, and
problems naming line and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collection.core.formats.documents import (
    MAX_PROBLEMS,
    documents_of,
)
from tests.unit.document_files import problems_of, read, write


@pytest.mark.parametrize(
    ("obj", "docno"),
    [
        ({"doc_id": "d1", "docno": "x", "id": "y", "_id": "z"}, "d1"),
        ({"docno": "d2", "id": "y", "_id": "z"}, "d2"),
        ({"id": 17, "_id": "z"}, "17"),
        ({"_id": "d4"}, "d4"),
    ],
)
def test_jsonl_id_comes_from_the_first_known_field_when_several_are_given(
    tmp_path: Path, obj: dict[str, object], docno: str
) -> None:
    (doc,) = read(write(tmp_path, "c.jsonl", json.dumps(obj) + "\n"))
    assert doc.docno == docno
    used = next(k for k in ("doc_id", "docno", "id", "_id") if k in obj)
    assert doc.metadata == {k: v for k, v in obj.items() if k != used}


@pytest.mark.parametrize("body_field", ["text", "contents", "body"])
def test_jsonl_title_body_url_and_metadata_are_kept_when_read(
    tmp_path: Path, body_field: str
) -> None:
    obj = {
        "id": "d",
        "title": "T",
        body_field: "B\nwith lines",
        "url": "https://e.org/d",
        "lang": "en",
        "tags": [1, "two", None],
    }
    (doc,) = read(write(tmp_path, "c.jsonl", json.dumps(obj) + "\n\n"))
    assert (doc.title, doc.body, doc.url) == ("T", "B\nwith lines", "https://e.org/d")
    assert doc.metadata == {"lang": "en", "tags": [1, "two", None]}
    assert doc.body_format == "text"


def test_jsonl_html_body_is_marked_html_when_it_starts_as_a_page(tmp_path: Path) -> None:
    obj = {"id": "d", "text": "  <!DOCTYPE html><html><body>x</body></html>"}
    (doc,) = read(write(tmp_path, "c.jsonl", json.dumps(obj)))
    assert doc.body_format == "html"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"id": "a", "text": "x"', "not valid JSON: Expecting ',' delimiter (column 24)"),
        ('["a", "b"]', "a line must hold a JSON object, not an array"),
        ('{"text": "x"}', "no id field (doc_id, docno, id or _id)"),
        ('{"id": 1.5}', "field id must be a string or an integer, not a number"),
        ('{"docno": true}', "field docno must be a string or an integer, not a boolean"),
        ('{"id": "a", "title": 3}', "docno a: field title must be a string, not a number"),
        ('{"id": "a", "contents": ["x"]}', "docno a: field contents must be a string, not an"),
        ('{"id": "a", "url": {}}', "docno a: field url must be a string, not an object"),
        ('{"id": "a", "score": NaN}', "not valid JSON: NaN is not a JSON number"),
        ('{"id": ""}', "empty docno"),
        ('{"id": "a\\tb"}', "contains whitespace"),
        ('{"id": "a", "text": "x\\u0000y"}', "docno a: field body contains a NUL character"),
        ('{"id": "a", "m": "x\\u0000y"}', "docno a: field metadata contains a NUL character"),
        ('{"id": "a", "text": "\\ud800"}', "docno a: field body contains an unpaired surrogate"),
    ],
)
def test_jsonl_problem_names_line_and_field_when_a_line_is_bad(
    tmp_path: Path, line: str, message: str
) -> None:
    content = '{"id": "ok", "text": "fine"}\n' + line + "\n"
    (problem,) = problems_of(write(tmp_path, "c.jsonl", content), "jsonl")
    assert problem.startswith("c.jsonl line 2: ")
    assert message in problem


def test_jsonl_literal_backslash_u0000_is_text_not_a_nul_when_read(tmp_path: Path) -> None:
    (doc,) = read(write(tmp_path, "c.jsonl", json.dumps({"id": "a", "m": "\\u0000"})))
    assert doc.metadata == {"m": "\\u0000"}


def test_jsonl_reading_stops_at_the_problem_limit_when_every_line_is_bad(tmp_path: Path) -> None:
    path = write(tmp_path, "c.jsonl", "nope\n" * (MAX_PROBLEMS + 50))
    _, problems = documents_of(path, "jsonl")
    assert len(problems.found) == MAX_PROBLEMS


_TEXT = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=60)


@settings(max_examples=60, deadline=None)
@given(
    docs=st.dictionaries(
        st.text(
            st.characters(
                min_codepoint=33,
                max_codepoint=0x2FFF,
                exclude_categories=["Cs", "Zs", "Zl", "Zp", "Cc"],
            ),
            min_size=1,
            max_size=20,
        ),
        st.tuples(_TEXT, _TEXT),
        min_size=1,
        max_size=8,
    )
)
def test_jsonl_round_trips_any_text_when_written_by_json_dumps(
    tmp_path_factory: pytest.TempPathFactory, docs: dict[str, tuple[str, str]]
) -> None:
    path = tmp_path_factory.mktemp("rt") / "c.jsonl"
    path.write_text(
        "".join(json.dumps({"id": d, "title": t, "text": b}) + "\n" for d, (t, b) in docs.items())
    )
    records, problems = documents_of(path, "jsonl")
    expected = {d: tb for d, tb in docs.items() if d.split() == [d]}
    assert {r.docno: (r.title, r.body) for r in records} == expected
    assert len(problems.found) == len(docs) - len(expected)
