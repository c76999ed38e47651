"""safe_cell: OWASP's CSV-injection rule, numbers untouched."""

from __future__ import annotations

import datetime as dt

import pytest

from kernel.core.spreadsheet import safe_cell, safe_row


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("=1+1", "'=1+1"),
        ('=HYPERLINK("https://x")', '\'=HYPERLINK("https://x")'),
        ("+cmd", "'+cmd"),
        ("-cmd|' /C calc'!A0", "'-cmd|' /C calc'!A0"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tTAB", "'\tTAB"),
        ("\rCR", "'\rCR"),
        ("-", "'-"),
        ("-1+2", "'-1+2"),
        ("-0x10", "'-0x10"),
        ("-inf", "'-inf"),
        ("-\u0661", "'-\u0661"),  # Arabic-Indic one: not an ASCII number
        ("-0.5", "-0.5"),
        ("+3", "+3"),
        ("-1e-3", "-1e-3"),
        ("-.5", "-.5"),
        ("-0.1234", "-0.1234"),
        ("plain text", "plain text"),
        ("a=b", "a=b"),
        ("", ""),
        (-0.5, -0.5),
        (-3, -3),
        (None, None),
    ],
)
def test_safe_cell_neutralizes_formula_text_when_it_is_not_a_number(
    value: object, written: object
) -> None:
    assert safe_cell(value) == written


def test_safe_row_leaves_dates_and_numbers_when_mixed_with_text() -> None:
    day = dt.date(2022, 1, 2)
    assert safe_row([day, 2, 0.25, "=x"]) == [day, 2, 0.25, "'=x"]
