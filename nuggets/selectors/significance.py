"""The scores page's significance table, cached by what it is computed from.

Testing every pair of runs takes seconds on a full campaign (4 s at 100 runs by 300 topics)
while the scores behind it change only when a label, an adjudication, a nugget or a run does.
The key is a digest of exactly the figures the tests read (each run's per-topic values of the
measure, the topics, trials and seed), so a reload finds the table and any change to the
final labels that moves a figure makes a new key; nothing has to remember to invalidate it.
The cache is Django's (Redis, failing soft: kernel/cache.py): a miss only recomputes.
"""

from __future__ import annotations

import hashlib
import json
from array import array
from dataclasses import dataclass
from datetime import datetime

from django.core.cache import cache
from django.utils import timezone

from evaluation.core.significance import PairedTest
from nuggets.core.significance import DEFAULT_TRIALS, nugget_run_tests, per_topic_values
from nuggets.selectors import TaskScores

CACHE_SECONDS = 7 * 24 * 3600  # an unused key is dead once the labels move; this bounds Redis


@dataclass(frozen=True)
class RunTests:
    tests: list[PairedTest]
    computed_at: datetime  # when these figures were computed (shown on the page)


def _key(scores: TaskScores, measure: str, seed: int, trials: int) -> str:
    digest = hashlib.sha256(json.dumps([measure, seed, trials, scores.topics]).encode())
    for row in sorted(scores.runs, key=lambda r: r.run):
        values = per_topic_values(row.per_topic, scores.topics, measure)
        digest.update(row.run.encode() + b"\0")
        digest.update(array("d", values).tobytes())  # the floats exactly, fast to hash
    return "nugget-significance:" + digest.hexdigest()


def nugget_significance(
    scores: TaskScores, *, measure: str, seed: int = 0, trials: int = DEFAULT_TRIALS
) -> RunTests:
    """Every pair of the task's runs tested on ``measure``, from the cache when these very
    figures were tested before."""
    key = _key(scores, measure, seed, trials)
    found = cache.get(key)
    if isinstance(found, RunTests):
        return found
    tests = nugget_run_tests(
        {row.run: row.per_topic for row in scores.runs},
        scores.topics,
        measure=measure,
        seed=seed,
        trials=trials,
    )
    result = RunTests(tests, timezone.now())
    cache.set(key, result, CACHE_SECONDS)
    return result
