"""Display order of pool items: a seeded shuffle, stable across incremental rebuilds.

docs/pooling.md: "Display order: a seeded shuffle of the pool" and "nothing already judged is
removed
or re-ordered". Items already in the pool keep their position; items a rebuild adds come after
every existing one, shuffled among themselves, so assessors never see the order of any run.
"""

import random
from collections.abc import Iterable, Mapping


def display_orders(
    existing: Mapping[str, int], keys: Iterable[str], rng: random.Random
) -> dict[str, int]:
    """Display orders (1-based) for the ``keys`` not in ``existing``.

    New keys are sorted first so that the shuffle depends only on the seed and the set of keys,
    not on the order in which runs were read.
    """
    new_keys = sorted(set(keys).difference(existing))
    rng.shuffle(new_keys)
    start = max(existing.values(), default=0) + 1
    return {key: start + offset for offset, key in enumerate(new_keys)}
