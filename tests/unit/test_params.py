"""kernel.params: what each reader accepts and how it refuses."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest

from kernel.params import (
    MAX_ID,
    BadParameter,
    IdConverter,
    parse_choice,
    parse_float,
    parse_id,
    parse_int,
    parse_text,
)

REFUSED_IDS = [
    ("²", "ASCII digits"),  # str.isdigit() is true for it
    ("٣", "ASCII digits"),  # int() reads it as 3
    ("99999999999999999999999", "ASCII digits"),  # longer than any bigint
    (str(MAX_ID + 1), "between 1 and"),
    ("0", "between 1 and"),
    ("-1", "between 1 and"),
    ("", "required"),
    (None, "required"),
    ("abc", "ASCII digits"),
    ("1e3", "ASCII digits"),
    ("0x10", "ASCII digits"),
    (" 1", "ASCII digits"),
    ("1 ", "ASCII digits"),
    ("1_0", "ASCII digits"),
    ("+1", "ASCII digits"),
    ("1.0", "ASCII digits"),
    ("\x00", "ASCII digits"),
    ("9" * 5000, "ASCII digits"),
    (True, "whole number"),
]


@pytest.mark.parametrize(("raw", "problem"), REFUSED_IDS)
def test_parse_id_refuses_naming_the_parameter_when_value_is_not_an_id(
    raw: Any, problem: str
) -> None:
    with pytest.raises(BadParameter) as caught:
        parse_id(raw, name="task")
    assert caught.value.name == "task"
    assert str(caught.value).startswith("task: ")
    assert problem in caught.value.problem


@pytest.mark.parametrize(("raw", "expected"), [("1", 1), ("007", 7), (str(MAX_ID), MAX_ID), (5, 5)])
def test_parse_id_reads_the_number_when_value_is_an_id(raw: Any, expected: int) -> None:
    assert parse_id(raw, name="task") == expected


def test_optional_readers_give_the_default_when_value_is_missing() -> None:
    assert parse_id(None, name="qrels", default=None) is None
    assert parse_id("", name="qrels", default=None) is None
    assert parse_int(None, name="difference", low=0, high=3, default=1) == 1
    assert parse_choice("", name="show", choices=["all", "judged"], default="all") == "all"
    with pytest.raises(BadParameter):
        parse_id("²", name="qrels", default=None)  # present but bad is not "missing"


@pytest.mark.parametrize(
    ("raw", "ok"), [("-3", True), ("3", True), ("-4", False), ("4", False), ("--1", False)]
)
def test_parse_int_checks_the_range_when_negatives_are_allowed(raw: str, ok: bool) -> None:
    if ok:
        assert parse_int(raw, name="n", low=-3, high=3) == int(raw)
    else:
        with pytest.raises(BadParameter):
            parse_int(raw, name="n", low=-3, high=3)


@pytest.mark.parametrize(
    ("raw", "expected"), [("1.5", 1.5), ("2", 2.0), (".5", 0.5), ("1e2", 100.0), ("0", 0.0)]
)
def test_parse_float_reads_decimal_numbers_when_in_range(raw: str, expected: float) -> None:
    assert math.isclose(parse_float(raw, name="s", low=0, high=1000), expected)


REFUSED_FLOATS = ["nan", "inf", "-inf", "1_0", "\u0661", "1e999", "-1", "2000", "", "x"]


@pytest.mark.parametrize("raw", REFUSED_FLOATS)
def test_parse_float_refuses_when_value_is_not_a_finite_number_in_range(raw: str) -> None:
    with pytest.raises(BadParameter, match=r"^s: "):
        parse_float(raw, name="s", low=0, high=1000)


def test_parse_choice_keeps_the_choice_type_when_choices_are_numbers() -> None:
    assert parse_choice("2", name="grade", choices=[0, 1, 2, 3]) == 2
    with pytest.raises(BadParameter, match="must be one of 0, 1, 2, 3"):
        parse_choice("²", name="grade", choices=[0, 1, 2, 3])


def test_parse_text_refuses_nul_and_overlong_text_when_read_from_a_form() -> None:
    assert parse_text("fine", name="note", max_length=10) == "fine"
    assert parse_text(None, name="note", max_length=10, default="kept") == "kept"
    with pytest.raises(BadParameter, match="NUL"):
        parse_text("a\x00b", name="note", max_length=10)
    with pytest.raises(BadParameter, match="at most 10"):
        parse_text("x" * 11, name="note", max_length=10)


@pytest.mark.parametrize(("value", "ok"), [("1", True), (str(MAX_ID), True), ("0", False)])
def test_id_converter_matches_only_database_ids_when_resolving_a_path(value: str, ok: bool) -> None:
    converter = IdConverter()
    if ok:
        assert converter.to_python(value) == int(value)
    else:
        with pytest.raises(ValueError, match="not a database id"):
            converter.to_python(value)


def test_id_converter_refuses_beyond_bigint_when_resolving_a_path() -> None:
    assert re.fullmatch(IdConverter.regex, "9" * 20) is None
    with pytest.raises(ValueError, match="not a database id"):
        IdConverter().to_python(str(MAX_ID + 1))
