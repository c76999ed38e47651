"""Imports between apps point one way (docs/architecture.md): kernel, collection, pooling,
assessment, judges, evaluation, nuggets, each importing only those before it (and the
project's set-up, ``config``, for the Celery app); demo and config may import all."""

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ORDER = ["kernel", "collection", "pooling", "assessment", "judges", "evaluation", "nuggets"]


def _imported_apps(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.partition(".")[0])
    return found & {*ORDER, "demo", "config"}


@pytest.mark.parametrize("app", ORDER)
def test_an_app_imports_only_the_apps_below_it_when_any(app: str) -> None:
    allowed = set(ORDER[: ORDER.index(app) + 1])
    wrong = [
        f"{path.relative_to(REPO)} imports {sorted(bad)}"
        for path in sorted((REPO / app).rglob("*.py"))
        if "migrations" not in path.parts
        if (bad := _imported_apps(path) - allowed - {"config"})
    ]
    assert not wrong, wrong


def test_the_kernel_imports_no_app_when_loaded() -> None:
    for path in (REPO / "kernel").rglob("*.py"):
        assert _imported_apps(path) <= {"kernel", "config"}, path


def _private_names_imported(path: Path) -> list[str]:
    """``module.name`` for each ``_name`` imported from another module of the project."""
    tree = ast.parse(path.read_text(), filename=str(path))
    return [
        f"{node.module}.{alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0
        if node.module.partition(".")[0] in ORDER
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.startswith("__")
    ]


def test_a_pooling_selector_imports_no_private_name_when_it_shares_a_query_part() -> None:
    # A query part two selectors share is public in its one home, not borrowed privately.
    wrong = {
        str(path.relative_to(REPO)): names
        for path in sorted((REPO / "pooling" / "selectors").rglob("*.py"))
        if (names := _private_names_imported(path))
    }
    assert not wrong, wrong


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


@pytest.mark.parametrize("app", [*ORDER, "demo"])
def test_a_private_name_is_imported_only_within_its_own_package_when_at_all(app: str) -> None:
    # A module's private name is borrowed by the modules of its own package (a module split
    # into a package keeps its internals), never from elsewhere: what two places share is
    # public in its one home.
    wrong = {}
    for path in sorted((REPO / app).rglob("*.py")):
        package = ".".join(path.relative_to(REPO).parent.parts)
        names = [
            name
            for name in _private_names_imported(path)
            if not _within(name.rpartition(".")[0], package)
        ]
        if names:
            wrong[str(path.relative_to(REPO))] = names
    assert not wrong, wrong
