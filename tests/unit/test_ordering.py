"""The one order of topic numbers and ids (kernel.core.ordering)."""

from __future__ import annotations

import pytest

from kernel.core.ordering import natural_key


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (["A.10", "A.2", "B.1", "A.1"], ["A.1", "A.2", "A.10", "B.1"]),
        (["100", "99", "301", "1037798"], ["99", "100", "301", "1037798"]),
        (["doc-10", "doc-9", "doc-10a", "doc"], ["doc", "doc-9", "doc-10", "doc-10a"]),
    ],
)
def test_numbers_inside_strings_sort_by_value(given: list[str], expected: list[str]) -> None:
    assert sorted(given, key=natural_key) == expected


def test_superscripts_and_other_non_decimal_digits_sort_as_text_without_error() -> None:
    numbers = ["A.²", "A.2", "A.½", "A.٣"]  # "٣" is an Arabic-Indic three, a decimal digit
    assert sorted(numbers, key=natural_key) == ["A.2", "A.٣", "A.²", "A.½"]
