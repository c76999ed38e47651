"""The leave-one-team-out report counts a team's unique relevant items at the task's level."""

from evaluation.core.reusability import reusability_report

BEFORE = {"r1": (1, {"map": 0.5}), "r2": (2, {"map": 0.4})}
AFTER = {"r1": {"map": 0.45}, "r2": {"map": 0.4}}
UNIQUE = {1: {"301": {"d1", "d2", "d3", "d4"}}}
GRADES = {"301": {"d1": 1, "d2": 2, "d3": 4, "d4": 5}}  # 5: a flag code, not a grade


def unique_relevant(**level: int) -> int:
    report = reusability_report(BEFORE, AFTER, {1: "A", 2: "B"}, UNIQUE, GRADES, ["map"], **level)
    return next(entry["unique_relevant"] for entry in report if entry["team"] == "A")


def test_unique_relevant_items_are_those_at_or_above_the_relevance_level() -> None:
    assert unique_relevant() == 2  # ARQMath: H+M, grades 2 and up; the flag is not counted
    assert unique_relevant(relevant_from=1) == 3  # a binary or 0-2 scale relevant from 1
