"""A trec_eval 9 binary for the benchmarks: given, or built with make from a registry sdist.

pytrec_eval-terrier's source distribution is where trec_eval's C source would come from (the
bench never copies it into the project). Some of its releases fetch that source from GitHub
while building instead of carrying it: on a machine that reaches only package registries the
build then fails, and the reason is returned for the bench to print.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

SDIST = "pytrec_eval-terrier"
# A prebuilt binary a registry package ships (trec_eval 9.0.4, which compares float32 scores).
HINT = (
    "pyserini 0.40.0's wheel carries one: trec_eval/trec_eval-linux-amd64 inside "
    "pyserini/resources/jars/anserini-0.38.0-fatjar.jar"
)


def trec_eval_binary(given: Path | None, folder: Path) -> tuple[Path | None, str]:
    """(binary, "") or (None, why there is none)."""
    given = given or (Path(os.environ["TREC_EVAL"]) if os.environ.get("TREC_EVAL") else None)
    if given is not None:
        return (given, "") if given.is_file() else (None, f"{given} is not a file")
    folder.mkdir(parents=True, exist_ok=True)
    pip = [sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps"]
    download = subprocess.run(
        [*pip, "--no-build-isolation", "-d", str(folder), SDIST],
        capture_output=True,
        text=True,
    )
    archives = sorted(folder.glob("*.tar.gz"))
    if download.returncode != 0 or not archives:
        fetched = "Fetching trec_eval from" in download.stdout + download.stderr
        return None, (
            f"{SDIST}'s sdist does not carry trec_eval's source: it fetches it from GitHub "
            f"while building, which this machine cannot reach; give --trec-eval PATH ({HINT})"
            if fetched
            else f"pip download {SDIST} failed: {download.stderr.strip()[-200:]}"
        )
    with tarfile.open(archives[-1]) as archive:
        archive.extractall(folder, filter="data")
    makefiles = [m for m in folder.rglob("Makefile") if (m.parent / "trec_eval.c").is_file()]
    if not makefiles:
        return None, f"{archives[-1].name} carries no trec_eval source; give --trec-eval PATH"
    source = makefiles[0].parent
    built = subprocess.run(["make", "-C", str(source)], capture_output=True, text=True)
    binary = source / "trec_eval"
    if built.returncode != 0 or not binary.is_file():
        return None, f"make failed: {built.stderr.strip()[-200:]}"
    return binary, ""
