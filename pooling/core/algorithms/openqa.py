"""Open-domain QA answers (Task 3) join the answer pool of the topic with the same number.

docs/pooling.md: every answer (one per topic per run) goes into the pool of the answer
task's topic with the same number (A.x), judged with Task 1's criteria in the same assignments.
Two runs giving the very same text share one pool item (it is judged once).
"""

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field

ANSWER_KEY_PREFIX = "qa-"


def answer_key(text: str) -> str:
    """The pool item key of a generated answer: a digest of its text, stable across builds."""
    digest = hashlib.sha256(text.strip().encode("utf-8")).hexdigest()
    return ANSWER_KEY_PREFIX + digest[:32]


@dataclass(slots=True)
class GeneratedAnswer:
    text: str
    ranks: dict[int, int] = field(default_factory=dict)  # run id -> rank of the answer


def openqa_pool(answers: Iterable[tuple[int, int, str]]) -> dict[str, GeneratedAnswer]:
    """Pool items for one topic from (run id, rank, answer text): each run's best-ranked answer."""
    best: dict[int, tuple[int, str]] = {}
    for run_id, rank, text in answers:
        if not text.strip():
            continue
        if run_id not in best or rank < best[run_id][0]:
            best[run_id] = (rank, text)
    pool: dict[str, GeneratedAnswer] = {}
    for run_id, (rank, text) in sorted(best.items()):
        item = pool.setdefault(answer_key(text), GeneratedAnswer(text))
        item.ranks[run_id] = rank
    return pool
