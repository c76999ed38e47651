"""What the agreement tests share: grade strategies and scikit-learn's kappa as the oracle."""

from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

grades = st.integers(min_value=0, max_value=3)
paired_grades = st.lists(st.tuples(grades, grades), min_size=2, max_size=60)


def as_ratings(pairs: list[tuple[int, int]]) -> tuple[dict[int, int], dict[int, int]]:
    return {i: a for i, (a, _) in enumerate(pairs)}, {i: b for i, (_, b) in enumerate(pairs)}


def sklearn_kappa(pairs: list[tuple[int, int]], weights: str | None) -> float:
    a, b = zip(*pairs, strict=True)
    return float(cohen_kappa_score(a, b, labels=[0, 1, 2, 3], weights=weights))
