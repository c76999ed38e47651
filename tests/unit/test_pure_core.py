"""The pure core (algorithms, measures, agreement, parsers) never imports Django."""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PURE_PACKAGES = [
    "pooling/algorithms",
    "pooling/formats",
    "pooling/core",
    "collection/formats",
    "collection/formats/documents",
]
PURE_MODULES = [
    "evaluation/measures.py",
    "evaluation/trec_measures.py",
    "evaluation/trec_names.py",
    "evaluation/official.py",
    "evaluation/reports.py",
    "evaluation/qrels.py",
    "evaluation/readiness.py",
    "evaluation/answers.py",
    "assessment/agreement.py",
    "assessment/agreement_tables.py",
    "assessment/guidelines.py",
    "assessment/guidelines_defaults.py",
    "assessment/guidelines_markdown.py",
    "collection/document_html.py",
    "collection/query_terms.py",
]


def pure_modules() -> list[str]:
    found = [m for m in PURE_MODULES if (REPO / m).exists()]
    for package in PURE_PACKAGES:
        found += [str(p.relative_to(REPO)) for p in sorted((REPO / package).glob("*.py"))]
    return [m.removesuffix(".py").replace("/", ".").removesuffix(".__init__") for m in found]


@pytest.mark.parametrize("module", pure_modules())
def test_pure_module_imports_without_django_when_loaded_alone(module: str) -> None:
    code = (
        f"import sys; import {module}; "
        "bad = [m for m in sys.modules if m.partition('.')[0] in ('django', 'rest_framework')]; "
        "sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(  # noqa: S603
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, f"{module} pulls in Django: {result.stderr}"
