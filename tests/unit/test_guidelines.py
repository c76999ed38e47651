"""A task's grade scale and guidelines texts: validation, defaults, Markdown."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from assessment.core.guidelines import (
    FLAG_CODES,
    RESERVED_KEYS,
    GuidelinesInvalid,
    guidelines_problems,
    keys_parse,
    scale_as_json,
    scale_from_json,
)
from assessment.core.guidelines_defaults import default_guidelines
from assessment.core.guidelines_markdown import markdown_html, math_spans_protect
from assessment.models import Judgment


def binary() -> dict[str, Any]:
    return {
        "grades": [
            {"value": 1, "label": "Relevant", "keys": ["1", "r"], "definition": "Helps."},
            {"value": 0, "label": "Not relevant", "keys": ["0", "n"], "definition": ""},
        ],
        "flags": [{"code": "dont_know", "label": "Unsure", "keys": ["u"], "definition": ""}],
    }


def problems_of(data: Any) -> list[str]:
    with pytest.raises(GuidelinesInvalid) as caught:
        scale_from_json(data)
    return caught.value.problems


def test_default_scale_is_arqmath_0_to_3_with_its_keys_when_task_has_no_version() -> None:
    for kind in ("answer", "formula", "openqa"):
        scale = default_guidelines(kind).scale
        assert [(g.value, g.label, g.keys) for g in scale.grades] == [
            (3, "High", ("3", "h")),
            (2, "Medium", ("2", "m")),
            (1, "Low", ("1", "l")),
            (0, "Not relevant", ("0", "n")),
        ]
        assert [(f.code, f.keys) for f in scale.flags] == [
            ("system_failure", ("f",)),
            ("dont_know", ("d",)),
        ]
        assert all(g.definition for g in scale.grades)
        assert scale_from_json(scale_as_json(scale)) == scale  # the defaults pass validation


def test_default_document_scale_is_trec_0_to_2_with_flags_when_task_has_no_version() -> None:
    guidelines = default_guidelines("document")
    scale = guidelines.scale
    assert [(g.value, g.label, g.keys) for g in scale.grades] == [
        (2, "Highly relevant", ("2", "h")),
        (1, "Relevant", ("1", "r")),
        (0, "Not relevant", ("0", "n")),
    ]
    assert [(f.code, f.keys) for f in scale.flags] == [
        ("system_failure", ("f",)),
        ("dont_know", ("d",)),
    ]
    assert all(g.definition for g in scale.grades)
    assert "narrative" in guidelines.instructions
    assert scale_from_json(scale_as_json(scale)) == scale  # no reserved key, nothing missing


def test_highlight_keys_are_reserved_when_a_scale_wants_them() -> None:
    for key in ("x", ".", ","):
        data = binary()
        data["grades"][0]["keys"] = [key]
        [problem] = problems_of(data)
        assert f"key {key!r} is reserved" in problem


def test_flag_codes_are_the_judgment_model_flags_when_compared() -> None:
    assert set(FLAG_CODES) == {v for v in Judgment.Flag.values if v}


def test_scale_round_trips_top_first_with_lower_case_keys_when_valid() -> None:
    data = binary()
    data["grades"].reverse()
    data["grades"][1]["keys"] = ["1", "R"]
    scale = scale_from_json(data)
    assert [g.value for g in scale.grades] == [1, 0]
    assert scale.grade(1).keys == ("1", "r")  # type: ignore[union-attr]
    assert scale.top == 1
    assert scale.ways == 2
    assert scale.values == (0, 1)
    assert scale.key_map() == {"1": "1", "r": "1", "0": "0", "n": "0", "u": "dont_know"}
    assert scale_from_json(scale_as_json(scale)) == scale


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda d: d["grades"][0].update(keys=["j"]), "grade 1: key 'j' is reserved"),
        (lambda d: d["grades"][0].update(keys=["?"]), "grade 1: key '?' is reserved"),
        (lambda d: d["grades"][0].update(keys=["N"]), "key 'n' is also grade 1's"),
        (lambda d: d["grades"][0].update(keys=["ab"]), "key 'ab' is not a single printable"),
        (lambda d: d["grades"][0].update(keys=[" "]), "is not a single printable"),
        (lambda d: d["grades"][0].update(keys=[]), "grade 1: give it at least one key"),
        (lambda d: d["grades"][0].update(label="  "), "grade 1: the label is empty"),
        (lambda d: d["grades"][0].update(label="x" * 41), "grade 1: the label has 41 characters"),
        (lambda d: d["grades"][1].update(label="relevant"), "the label 'relevant' is also"),
        (lambda d: d["grades"][0].update(value=5), "the top grade must be 1 to 4"),
        (lambda d: d["grades"].pop(0), "the top grade must be 1 to 4"),
        (lambda d: d["grades"].pop(), "grades 0..1 must all be defined: missing [0]"),
        (lambda d: d["grades"][0].update(value=2), "grades 0..2 must all be defined: missing [1]"),
        (lambda d: d["flags"][0].update(code="maybe"), "unknown flag 'maybe'"),
        (lambda d: d["flags"].append(dict(d["flags"][0], keys=["w"])), "each flag may appear once"),
        (lambda d: d["flags"][0].update(keys=["1"]), "flag Do not know: key '1' is also grade 1's"),
    ],
)
def test_scale_is_refused_with_a_message_naming_where_when_invalid(change, expected) -> None:  # type: ignore[no-untyped-def]
    data = copy.deepcopy(binary())
    change(data)
    problems = problems_of(data)
    assert any(expected in p for p in problems), problems


def test_every_problem_is_reported_at_once_when_several_fields_are_wrong() -> None:
    data = binary()
    data["grades"][0].update(label="", keys=["k"])
    data["flags"][0].update(label="")
    problems = problems_of(data)
    assert len(problems) == 3, problems


@pytest.mark.parametrize("data", [None, [], {"grades": []}, {"grades": "x"}, {"grades": [1]}])
def test_scale_is_refused_without_crashing_when_json_is_malformed(data: Any) -> None:
    assert problems_of(data)


def test_reserved_keys_are_the_judging_page_keys_when_listed() -> None:
    assert {"j", "k", "c", "g", "?"} <= set(RESERVED_KEYS)
    assert all(len(key) == 1 and key == key.lower() for key in RESERVED_KEYS)


def test_relevance_level_must_be_a_grade_of_the_scale_when_guidelines_are_saved() -> None:
    top = scale_from_json(binary()).top
    assert guidelines_problems(instructions="", top=top, relevance_level=1) == []
    [problem] = guidelines_problems(instructions="", top=top, relevance_level=2)
    assert "relevance level: 2 is not one of the grades 1..1" in problem
    [problem] = guidelines_problems(instructions="x" * 20001, top=top, relevance_level=1)
    assert problem.startswith("instructions: 20001 characters")


def test_choice_texts_name_labels_and_keys_when_a_hit_needs_a_choice() -> None:
    scale = scale_from_json(binary())
    assert scale.choices_text() == "Relevant (1/r), Not relevant (0/n) or Unsure (u)"
    assert scale.values_text() == "0 or 1"
    assert scale.verdict_problem(2, "") == "a grade is 0 or 1"
    assert scale.verdict_problem(None, "system_failure") == "this task has no System failure flag"
    assert scale.verdict_problem(1, "") is None
    assert default_guidelines("answer").scale.values_text() == "0, 1, 2 or 3"


def test_abbreviation_and_tone_follow_the_scale_when_shown_in_lists() -> None:
    arqmath = default_guidelines("answer").scale
    assert [arqmath.abbreviation(v) for v in (3, 2, 1, 0)] == ["H", "M", "L", "N"]
    assert [arqmath.tone(v, 2) for v in (3, 2, 1, 0)] == ["high", "medium", "low", "not"]
    two = scale_from_json(binary())
    assert [two.abbreviation(v) for v in (1, 0)] == ["R", "N"]
    clash = binary()
    clash["grades"][0]["label"] = "Near"
    assert scale_from_json(clash).abbreviation(1) == "1"  # "Near" and "Not relevant"


def test_keys_typed_in_a_form_are_split_on_spaces_and_commas() -> None:
    assert keys_parse(" 3 h,x ,, ") == ["3", "h", "x"]


# --- Markdown -----------------------------------------------------------------------------


def test_math_passes_through_markdown_untouched_when_it_holds_emphasis_characters() -> None:
    html = markdown_html(r"**High**: $a_1*b*c_2$ and $$x_1 * y_2$$ cost \$5")
    assert "<strong>High</strong>" in html
    assert "$a_1*b*c_2$" in html
    assert "$$x_1 * y_2$$" in html
    assert r"\$5" in html
    assert "<em>" not in html


def test_math_is_escaped_and_a_lone_dollar_opens_nothing_when_rendered() -> None:
    assert "$x&lt;y$" in markdown_html("$x<y$")
    html = markdown_html("costs $5\n\nand *then* $6")
    assert "<em>then</em>" in html  # the dollars did not swallow the paragraphs


def test_placeholders_cannot_be_forged_when_the_source_contains_private_characters() -> None:
    protected, spans = math_spans_protect("\ue0000\ue001 and $x$")
    assert spans == ["$x$"]
    assert protected.count("\ue000") == 1


@pytest.mark.parametrize(
    ("source", "forbidden"),
    [
        ("<script>alert(1)</script>", "<script"),
        ('<img src=x onerror="alert(1)">', "<img"),
        ("[x](javascript:alert(1))", 'href="javascript'),
        ("<b onmouseover=alert(1)>hi</b>", "<b "),
        ("$<script>alert(1)</script>$", "<script"),
        ("![pic](https://tracker.example/p.png)", "<img"),
    ],
)
def test_markdown_is_sanitized_when_it_carries_html_or_scripts(source: str, forbidden: str) -> None:
    assert forbidden not in markdown_html(source)


def test_links_open_in_a_new_tab_without_referrer_when_allowed() -> None:
    html = markdown_html("[guide](https://example.org/guide)")
    assert 'href="https://example.org/guide"' in html
    assert 'target="_blank"' in html
    assert 'rel="noopener noreferrer"' in html


def test_default_answer_definitions_follow_the_arqmath_relevance_table_when_unchanged() -> None:
    # The overviews' table: judged as an expert would; High answers every part of a
    # multi-part question; a post restating the question adds nothing and is not relevant.
    guidelines = default_guidelines("answer")
    by_value = {g.value: g.definition for g in guidelines.scale.grades}
    assert "expert" in guidelines.instructions
    assert "every one of them" in by_value[3]
    assert "restatement" not in by_value[2]
    assert "restates the question" in by_value[0]
