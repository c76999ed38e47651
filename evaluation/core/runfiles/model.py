"""What reading a run file for evaluation gives: the run, or the error that lists its problems."""

from __future__ import annotations

from dataclasses import dataclass, field

from evaluation.core.measures import RankedRow, RunRow, Scores, dedup_first


class RunFileError(ValueError):
    """A run file that cannot be evaluated; the message lists its problems by line."""


@dataclass(slots=True)
class EvaluationRun:
    """A run read for evaluation: its rows in file order, or (answer and open-QA runs read on
    the fast path) already deduplicated scores, first row wins."""

    file: str
    tag: str
    format: str
    rows: list[RunRow] = field(default_factory=list)
    deduplicated: Scores | None = None
    ranked: list[RankedRow] = field(default_factory=list)  # Task 3 measures only
    texts: dict[str, str] = field(default_factory=dict)  # native Task 3: answer id -> text

    def scores(self) -> Scores:
        return self.deduplicated if self.deduplicated is not None else dedup_first(self.rows)
