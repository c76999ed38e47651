"""The one compiled module: evaluation.core._run_scores, the hot path of reading run files.

Everything else is configured in pyproject.toml. The module is optional: without a C compiler
the install goes on and evaluation reads runs in Python, with the same results, more slowly.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "evaluation.core._run_scores",
            ["evaluation/core/_run_scores.c"],
            optional=True,
        )
    ]
)
