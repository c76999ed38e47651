"""``evaluate --measure`` outputs read back: table, CSV, JSON and LaTeX give pytrec_eval's numbers
(trec_eval's to the last printed digit) on generated TREC runs: string docnos, ties, unjudged
documents, topics missing from runs, graded qrels, relevance levels, judged-only, both
averages, the document task."""

from __future__ import annotations

import csv
import io
import json
import random
import re
from pathlib import Path

import pytest

from tests.integration.test_evaluate_measures_cli import run_cli
from tests.unit.test_trec_measures import trec_eval

NAMES = ["map", "P.5,10", "ndcg_cut_10", "recip_rank", "bpref", "Rprec", "gm_map", "num_rel",
         "num_rel_ret", "num_ret", "set_F", "iprec_at_recall.0.1", "success.5"]  # fmt: skip
KEYS = ["map", "P_5", "P_10", "ndcg_cut_10", "recip_rank", "bpref", "Rprec", "gm_map", "num_rel",
        "num_rel_ret", "num_ret", "set_F", "iprec_at_recall_0.10", "success_5"]  # fmt: skip


def generated(tmp_path: Path, seed: int) -> tuple[str, list[str], dict, dict[str, dict]]:
    rng = random.Random(seed)
    docnos = [f"{p}-{n}" for p in ("FBIS3", "LA0101", "clueweb.x") for n in range(30)]
    topics = [str(300 + t) for t in range(6)]
    qrels = {t: {d: rng.choice([0, 0, 1, 2, 3]) for d in rng.sample(docnos, 25)} for t in topics}
    (tmp_path / "qrels.txt").write_text(
        "".join(f"{t} 0 {d} {g}\n" for t, docs in qrels.items() for d, g in docs.items())
    )
    runs: dict[str, dict] = {}
    paths = []
    for r in range(3):
        tag = f"team{r}"
        run = {
            t: {d: float(rng.choice([1, 2, 2, 3, 5])) for d in rng.sample(docnos, 40)}
            for t in topics[: 6 - r]  # team1 and team2 miss topics
        }
        runs[tag] = run
        lines = [
            f"{t} Q0 {d} {rank} {s} {tag}\n"
            for t, docs in run.items()
            for rank, (d, s) in enumerate(docs.items(), 1)
        ]
        (tmp_path / f"{tag}.txt").write_text("".join(lines))
        paths.append(str(tmp_path / f"{tag}.txt"))
    return str(tmp_path / "qrels.txt"), paths, qrels, runs


def cli(qrels: str, paths: list[str], fmt: str, options: list[str]) -> str:
    measures = [arg for name in NAMES for arg in ("--measure", name)]
    return run_cli("--qrels", qrels, *paths, *measures, *options, "--format", fmt, "--per-topic")


def printed(key: str, value: float) -> str:
    """trec_eval's printf: counts as whole numbers, the rest %6.4f."""
    return f"{round(value)}" if key.startswith("num_") else f"{value:.4f}"


OPTIONS = [
    ("all", 1, False),
    ("run", 1, False),
    ("all", 2, True),
    ("run", 3, True),
]


@pytest.mark.parametrize(("average", "level", "judged_only"), OPTIONS)
@pytest.mark.parametrize("seed", [1, 2])
def test_every_format_reads_back_pytrec_eval_numbers_when_generated_runs(
    tmp_path: Path, seed: int, average: str, level: int, judged_only: bool
) -> None:
    qrels_path, paths, qrels, runs = generated(tmp_path, seed)
    options = ["--average", average, "--relevance-level", str(level), "--task", "document"]
    options += ["--judged-only"] if judged_only else []
    expected = {
        tag: trec_eval(qrels, run, NAMES, level=level, judged_only=judged_only, average=average)
        for tag, run in runs.items()
    }

    # JSON: one object per run with its measures map, full precision.
    for row in json.loads(cli(qrels_path, paths, "json", options)):
        means, per = expected[row["run"]]
        assert list(row["measures"]) == KEYS
        for key in KEYS:
            assert row["measures"][key] == pytest.approx(means[key], rel=1e-12, abs=1e-12)
            for topic, values in per.items():
                assert row["per_topic"][topic][key] == pytest.approx(values[key], abs=1e-12)
        assert set(row["per_topic"]) == set(per)

    # CSV: run, topic ("all" for the summary), one column per measure.
    table = list(csv.DictReader(io.StringIO(cli(qrels_path, paths, "csv", options))))
    for line in table:
        means, per = expected[line["run"]]
        values = means if line["topic"] == "all" else per[line["topic"]]
        for key in KEYS:
            assert float(line[key]) == pytest.approx(values[key], rel=1e-12, abs=1e-12)
    assert len(table) == sum(1 + len(per) for _, per in expected.values())

    # Table: trec_eval's lines, equal to the last printed digit.
    seen = 0
    for shown in cli(qrels_path, paths, "table", options).splitlines():
        fields = shown.split("\t")
        if len(fields) != 4:
            continue
        key, topic, value, run = fields[0].strip(), fields[1], fields[2], fields[3]
        means, per = expected[run]
        assert value == printed(key, means[key] if topic == "all" else per[topic][key]), shown
        seen += 1
    summaries = len(KEYS) * len(runs)
    per_topic = sum((len(KEYS) - 1) * len(per) for _, per in expected.values())  # no gm_ lines
    assert seen == summaries + per_topic

    # LaTeX: the means, 4 decimals.
    latex = cli(qrels_path, paths, "latex", options)
    for tag, (means, _) in expected.items():
        row = next(line for line in latex.splitlines() if line.startswith(f"{tag} &"))
        cells = re.findall(r"-?\d+\.\d{4}", row)
        assert cells == [f"{means[key]:.4f}" for key in KEYS]


def test_document_task_defaults_score_without_measure_when_task_document(tmp_path: Path) -> None:
    qrels_path, paths, qrels, runs = generated(tmp_path, 5)
    rows = json.loads(
        run_cli("--qrels", qrels_path, *paths, "--task", "document", "--format", "json")
    )
    defaults = ["map", "P_10", "ndcg_cut_10", "bpref"]
    for row in rows:
        means, _ = trec_eval(qrels, runs[row["run"]], defaults)
        assert row["measures"] == pytest.approx(means, rel=1e-12)
