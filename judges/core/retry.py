"""When to ask again after a 429, a 5xx or a timeout, and what a run costs."""

from __future__ import annotations

import random

__all__ = ["MAX_TRIES", "backoff_seconds", "cost", "projected"]

MAX_TRIES = 10
BASE_SECONDS = 0.05
CAP_SECONDS = 30.0


def backoff_seconds(tries: int, retry_after: float | None, rng: random.Random) -> float:
    """Seconds to wait before try ``tries + 1``: the server's Retry-After when it gave one
    (bounded), else exponential backoff with full jitter (AWS's "Exponential Backoff and
    Jitter"), so many workers that failed together do not retry together."""
    if retry_after is not None and retry_after >= 0:
        return min(retry_after, CAP_SECONDS)
    return rng.uniform(0, min(CAP_SECONDS, BASE_SECONDS * 2 ** max(tries - 1, 0)))


def cost(tokens: int, price_per_1k: float) -> float:
    return tokens * price_per_1k / 1000.0


def projected(so_far: float, asked: int, to_ask: int) -> float:
    """What the whole run will cost at the rate of the questions asked so far."""
    return so_far if asked <= 0 else so_far * to_ask / asked
