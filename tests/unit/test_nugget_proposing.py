"""Reading an endpoint's nugget proposals strictly: a list after a final ``Nuggets:`` line,
one ``vital: …`` or ``okay: …`` a line, or a failure that says why (never a guess)."""

from __future__ import annotations

import pytest

from nuggets.core.proposing import MAX_PROPOSED, proposals_parse


@pytest.mark.parametrize(
    ("answer", "nuggets"),
    [
        ("Nuggets:\nvital: A\nokay: B", [("A", "vital"), ("B", "okay")]),
        (
            "Thinking.\n**Nuggets:**\n- Vital: A  fact\n\n* okay:B",
            [("A fact", "vital"), ("B", "okay")],
        ),
        # Only the last list counts: a draft earlier in the reasoning is not the answer.
        ("Nuggets:\nvital: draft\nNow the final list.\nNuggets:\nokay: C", [("C", "okay")]),
    ],
)
def test_nuggets_are_read_when_the_answer_ends_with_a_valid_list(
    answer: str, nuggets: list[tuple[str, str]]
) -> None:
    parsed = proposals_parse(answer)
    assert parsed.ok, parsed.failure
    assert [(text, importance.value) for text, importance in parsed.nuggets] == nuggets


@pytest.mark.parametrize(
    ("answer", "failure"),
    [
        (None, "the answer is empty"),
        ("  \n ", "the answer is empty"),
        ("vital: A\nokay: B", "no line 'Nuggets:'"),
        ("Nuggets:\n", "no nugget after the line 'Nuggets:'"),
        ("Nuggets:\nvital: A\nThat is all.", "line 3 is not 'vital: <fact>'"),
        ("Nuggets:\nimportant: A", "line 2 is not 'vital: <fact>'"),
        ("Nuggets:\nvital: A\nokay: a", "line 3 repeats a nugget"),
        ("Nuggets:\nvital: " + "x" * 2001, "a nugget of at most 2,000 characters"),
        (
            "Nuggets:\n" + "".join(f"okay: fact {i}\n" for i in range(MAX_PROPOSED + 1)),
            f"{MAX_PROPOSED + 1} nuggets: at most {MAX_PROPOSED}",
        ),
    ],
)
def test_the_answer_is_a_failure_with_its_reason_when_the_list_is_malformed(
    answer: object, failure: str
) -> None:
    parsed = proposals_parse(answer)
    assert not parsed.ok
    assert parsed.nuggets == []
    assert failure in parsed.failure
