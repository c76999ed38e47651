"""Fixtures every test layer shares."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
ARQMATH = REPO.parent / "shared" / "data" / "arqmath"


@pytest.fixture(scope="session")
def arqmath_data() -> Path:
    """Real ARQMath files in ../shared/data/arqmath: skipped in a user's clone, required in CI."""
    if not ARQMATH.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"CI must have the real ARQMath files at {ARQMATH}")
        pytest.skip(f"real ARQMath files not found at {ARQMATH} (a clone without ../shared)")
    return ARQMATH
