"""The pure core (every app's ``core/`` folder) never imports Django, and the lint rule says so.

The one list of pure folders is the ruff configuration in ``pyproject.toml`` (``TID251`` outside
``**/core/**`` is ignored); these tests check that rule bites and that the folders really load
without Django.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CORE_FOLDERS = sorted(p.relative_to(REPO) for p in REPO.glob("*/core") if p.is_dir())
RUFF = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))


def _core_modules() -> list[str]:
    found = []
    for folder in CORE_FOLDERS:
        for path in sorted((REPO / folder).rglob("*.py")):
            dotted = str(path.relative_to(REPO).with_suffix("")).replace("/", ".")
            found.append(dotted.removesuffix(".__init__"))
    return found


def test_every_app_has_a_core_folder() -> None:
    apps = {"kernel", "collection", "pooling", "assessment", "judges", "evaluation", "nuggets"}
    assert {str(folder.parent) for folder in CORE_FOLDERS} == apps


@pytest.mark.parametrize(
    ("folder", "expected_banned"),
    [("pooling/core/formats", True), ("evaluation/core", True), ("pooling/services", False)],
)
def test_lint_refuses_django_import_when_in_a_core_folder(
    folder: str, expected_banned: bool
) -> None:
    probe = REPO / folder / "lint_probe_django_import.py"
    probe.write_text("from django.db import models\n\nFIELD = models.IntegerField\n")
    try:
        result = subprocess.run(  # noqa: S603
            [RUFF, "check", "--no-cache", "--select", "TID251", str(probe)],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        probe.unlink()
    assert ("TID251" in result.stdout) is expected_banned, result.stdout


@pytest.mark.parametrize("module", _core_modules())
def test_core_module_imports_without_django_when_loaded_alone(module: str) -> None:
    code = (
        f"import sys; import {module}; "
        "bad = [m for m in sys.modules if m.partition('.')[0] in ('django', 'rest_framework')]; "
        "sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(  # noqa: S603
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, f"{module} pulls in Django: {result.stderr}"
