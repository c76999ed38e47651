"""Every pointer to the docs resolves, and the architecture map names files that exist.

Comments point to ``docs/…`` pages instead of anything outside the repository; a renamed or
deleted page, or a module moved without its map entry, fails here.
"""

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC_POINTER = re.compile(r"docs/[\w-]+\.md")
REPO_PATH = re.compile(r"`((?:kernel|collection|pooling|assessment|evaluation|config)/[\w/.]+)`")


def _tracked(*patterns: str) -> list[Path]:
    names = subprocess.run(  # noqa: S603
        ["git", "ls-files", *patterns],  # noqa: S607
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [REPO / name for name in names if (REPO / name).exists()]


def test_every_docs_pointer_names_an_existing_page() -> None:
    missing = {
        f"{path.relative_to(REPO)}: {pointer}"
        for path in _tracked("*.py", "*.html", "*.js", "*.md", "*.toml")
        for pointer in DOC_POINTER.findall(path.read_text(errors="replace"))
        if not (REPO / pointer).exists()
    }
    assert not missing, sorted(missing)


def test_no_comment_cites_an_issue_number_or_the_original_design_file() -> None:
    cite = re.compile(r"DESIGN\.md|\b[Ii]ssue \d+")
    found = [
        f"{path.relative_to(REPO)}:{number}"
        for path in _tracked("*.py", "*.html", "*.js", "*.css", "*.md")
        if path.name != "test_docs_resolve.py"
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        if cite.search(line)
    ]
    assert not found, found


@pytest.mark.parametrize("page", ["docs/architecture.md", "README.md"])
def test_paths_named_in_the_map_exist(page: str) -> None:
    text = (REPO / page).read_text()
    missing = [
        name
        for name in REPO_PATH.findall(text)
        if "<" not in name and not (REPO / name.rstrip("/")).exists()
    ]
    assert not missing, missing
