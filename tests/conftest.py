"""Fixtures every test layer shares."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
ARQMATH = REPO.parent / "shared" / "data" / "arqmath"
TREC_COVID = REPO.parent / "shared" / "data" / "trec-covid-round1"


@pytest.fixture(scope="session")
def arqmath_data() -> Path:
    """Real ARQMath files in ../shared/data/arqmath: skipped in a user's clone, required in CI."""
    if not ARQMATH.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"CI must have the real ARQMath files at {ARQMATH}")
        pytest.skip(f"real ARQMath files not found at {ARQMATH} (a clone without ../shared)")
    return ARQMATH


@pytest.fixture(scope="session")
def trec_covid_data() -> Path:
    """Real TREC-COVID round 1 files in ../shared/data/trec-covid-round1: skipped in a user's
    clone, required in CI."""
    if not TREC_COVID.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"CI must have the real TREC-COVID round 1 files at {TREC_COVID}")
        pytest.skip(f"TREC-COVID round 1 files not found at {TREC_COVID} (no ../shared)")
    return TREC_COVID


@pytest.fixture(autouse=True)
def _forget_kept_rankings() -> None:
    """Each test starts without the runs' rankings an earlier one kept in memory
    (pooling/selectors/topic_rankings.py): a test database may hand out the same run ids and
    versions again with other rows, which a live database never does."""
    from pooling.selectors.topic_rankings import topic_rankings_forget

    topic_rankings_forget()
