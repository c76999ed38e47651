"""The organizer dashboard's figures per topic, per assessor and per task.

`assessment.selectors.dashboard` fills them from grouped queries; what they derive (relevant
judgments, topics at risk, percentages, the grade legend) is worked out here, once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from assessment.core.guidelines import GradeScale
from assessment.selectors.progress import Progress, scope_emptied
from collection.models import RetrievalTask
from pooling.models import PoolBuild


def grade_css(value: int, top: int, relevant_from: int) -> str:
    """The dashboard's colour class of a grade (g3 H, g2 M, g1 L, g0 N in ARQMath's scale)."""
    if value <= 0:
        return "g0"
    if value >= top:
        return "g3"
    return "g2" if value >= relevant_from else "g1"


@dataclass
class TopicProgress:
    topic_id: int
    number: str
    title: str
    hits: int = 0
    judged: int = 0
    assessor: str | None = None
    dual_assessor: str | None = None
    last_activity: datetime | None = None
    # Judgments per grade 0..G (N, L, M, H for ARQMath's scale); longer when a judgment's
    # grade lies above the scale's top (the scale was narrowed after it was made).
    grades: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    flags: int = 0
    relevant_from: int = 2  # the task's relevance level
    top: int = 3  # the task's top grade
    kind: str = ""
    items: int = 0  # counted for formula tasks only: elsewhere an item is one hit
    judged_items: int = 0
    # The official assignment covers chosen items only (a drawn human sample's): hits, items
    # and judged count its scope, not the whole pool of the topic.
    scoped: bool = False

    @property
    def progress(self) -> Progress:
        """Official progress in the task's units ("3 of 44 formulae · 30 of 100 posts")."""
        return Progress(self.kind, self.judged_items, self.items, self.judged, self.hits)

    @property
    def relevant(self) -> int:
        """Judgments so far of grade >= the task's relevance level (ARQMath: H+M)."""
        return sum(self.grades[self.relevant_from :])

    @property
    def closed(self) -> bool:
        """Its official assignment's scope was emptied: closed for the assessor."""
        return scope_emptied(scoped=self.scoped, hits=self.hits)

    @property
    def at_risk(self) -> bool:
        """ARQMath dropped topics with fewer than 2 H+M-relevant items; a topic nobody has
        started on is not at risk yet, only waiting."""
        return self.judged > 0 and self.relevant < 2

    @property
    def distribution(self) -> list[tuple[int, int, str]]:
        """(grade, judgments, colour class) from the top grade down."""
        return [
            (value, self.grades[value], grade_css(value, self.top, self.relevant_from))
            for value in range(self.top, -1, -1)
        ]

    @property
    def percent(self) -> float:
        return 100.0 * self.judged / self.hits if self.hits else 0.0


@dataclass
class AssessorProgress:
    assessor_id: int
    name: str
    assigned_hits: int = 0
    judged: int = 0
    judgments: int = 0  # made by this assessor in the task, wherever they are now
    flags: int = 0
    last_activity: datetime | None = None
    mean_seconds: float | None = None
    median_seconds: float | None = None
    reasons: list[str] = field(default_factory=list)

    @property
    def flag_rate(self) -> float:
        return self.flags / self.judgments if self.judgments else 0.0

    @property
    def percent(self) -> float:
        return 100.0 * self.judged / self.assigned_hits if self.assigned_hits else 0.0


@dataclass
class TaskDashboard:
    task: RetrievalTask
    runs: dict[str, int]
    pool_items: int
    pool_hits: int
    last_build: PoolBuild | None
    topics: list[TopicProgress]
    assessors: list[AssessorProgress]
    progress: list[tuple[str, int]]  # cumulative judgments per hour or per day
    histogram: list[tuple[str, int]]
    scale: GradeScale | None = None  # the task's grade scale
    relevance_level: int = 2

    @property
    def at_risk(self) -> list[TopicProgress]:
        return [t for t in self.topics if t.at_risk]

    @property
    def legend(self) -> list[tuple[str, str, str]]:
        """(abbreviation, label, colour class) of each grade, top first."""
        if self.scale is None:
            return []
        return [
            (
                self.scale.abbreviation(g.value),
                g.label,
                grade_css(g.value, self.scale.top, self.relevance_level),
            )
            for g in self.scale.grades
        ]

    @property
    def to_look_at(self) -> list[AssessorProgress]:
        return [a for a in self.assessors if a.reasons]

    @property
    def judged(self) -> int:
        return sum(t.judged for t in self.topics)

    @property
    def to_judge(self) -> int:
        """The hits people are to judge: every topic's pool, or its scope when its official
        assignment is scoped (``pool_hits`` is the whole pool)."""
        return sum(t.hits for t in self.topics)

    @property
    def completion(self) -> Progress:
        """The task's official progress in its units (``progress`` is the chart's series)."""
        return Progress(
            self.task.kind,
            sum(t.judged_items for t in self.topics),
            sum(t.items for t in self.topics),
            self.judged,
            self.to_judge,
        )

    @property
    def percent(self) -> float:
        return 100.0 * self.judged / self.to_judge if self.to_judge else 0.0
