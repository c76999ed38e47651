"""A small judged answer task for the evaluation tests: pools, judgments, runs, contributions.

Topic A.1: posts 101 (official H), 102 (official N, dual M), 103 (official L, dual M,
adjudicated M), 104 (official "do not know"), 105 (dual M only); topic A.2: 201 (M), 202 (H).
Run "alpha" (team Alpha) ranks A.1: 101, 102, 103, 999 (unjudged) and A.2: 202, 201; run "beta"
(team Beta) ranks A.1 only: 105, 101. Post 105 is in the pool through beta alone.
"""

from dataclasses import dataclass

from assessment.models import Assignment, Judgment
from collection.models import RetrievalTask, Topic
from pooling.models import Hit, PoolItem, Run
from tests.factories import (
    AdjudicationFactory,
    AssignmentFactory,
    ContributionFactory,
    HitFactory,
    JudgmentFactory,
    PoolItemFactory,
    RetrievalTaskFactory,
    RunFactory,
    RunRowFactory,
    TeamFactory,
    TopicFactory,
    UserFactory,
)


@dataclass
class JudgedTask:
    task: RetrievalTask
    topics: dict[str, Topic]
    hits: dict[int, Hit]
    alpha: Run
    beta: Run


def judged_answer_task() -> JudgedTask:
    task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.ANSWER)
    topics = {n: TopicFactory.create(task=task, number=n) for n in ("A.1", "A.2")}
    official, dual = UserFactory.create(), UserFactory.create()
    assignments = {
        (n, purpose): AssignmentFactory.create(topic=t, assessor=who, purpose=purpose)
        for n, t in topics.items()
        for purpose, who in (
            (Assignment.Purpose.OFFICIAL, official),
            (Assignment.Purpose.DUAL, dual),
        )
    }
    hits: dict[int, Hit] = {}
    items: dict[int, PoolItem] = {}
    for order, (number, post) in enumerate(
        [
            ("A.1", 101),
            ("A.1", 102),
            ("A.1", 103),
            ("A.1", 104),
            ("A.1", 105),
            ("A.2", 201),
            ("A.2", 202),
        ]
    ):
        items[post] = PoolItemFactory.create(
            topic=topics[number], post_id=post, key=str(post), display_order=order
        )
        hits[post] = HitFactory.create(item=items[post], post_id=post)

    def judge(post: int, purpose: Assignment.Purpose, grade: int | None, flag: str = "") -> None:
        number = "A.1" if post < 200 else "A.2"
        JudgmentFactory.create(
            assignment=assignments[(number, purpose)],
            hit=hits[post],
            grade=grade,
            flag=flag,
            comment="unsure" if flag else "",
        )

    for post, grade in ((101, 3), (102, 0), (103, 1), (201, 2), (202, 3)):
        judge(post, Assignment.Purpose.OFFICIAL, grade)
    judge(104, Assignment.Purpose.OFFICIAL, None, Judgment.Flag.DONT_KNOW)
    for post in (102, 103, 105):
        judge(post, Assignment.Purpose.DUAL, 2)
    AdjudicationFactory.create(hit=hits[103], grade=2)

    alpha = RunFactory.create(task=task, team=TeamFactory.create(name="Alpha"), tag="alpha")
    beta = RunFactory.create(task=task, team=TeamFactory.create(name="Beta"), tag="beta")
    for run, ranking in (
        (
            alpha,
            [("A.1", 101), ("A.1", 102), ("A.1", 103), ("A.1", 999), ("A.2", 202), ("A.2", 201)],
        ),
        (beta, [("A.1", 105), ("A.1", 101)]),
    ):
        for rank, (number, post) in enumerate(ranking, 1):
            RunRowFactory.create(
                run=run, topic=topics[number], post_id=post, rank=rank, score=10.0 - rank
            )
            if post in items:
                ContributionFactory.create(item=items[post], run=run, rank=rank)
    return JudgedTask(task, topics, hits, alpha, beta)
