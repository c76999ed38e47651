"""``manage.py evaluate``: score run files against a qrels file, no database needed."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluation.core.answer_questions import JudgmentsFileError
from evaluation.core.answers import AnswerMapError, run_teams_read
from evaluation.core.lexical_overlap import DEFAULT_TOKENIZER, TOKENIZERS
from evaluation.core.official import default_text, official_measure_names
from evaluation.core.qrels import QrelsFormatError
from evaluation.core.ranking import PRECISIONS
from evaluation.core.reports import MEASURE_RENDERERS, RENDERERS
from evaluation.core.runfiles import RunFileError, evaluate_run_files, evaluate_run_files_measures
from evaluation.core.trec_measures import MeasureNameError
from kernel.core.qrels import QRELS_FILE_HELP


class Command(BaseCommand):
    help = (
        "Evaluate run files against a qrels file with any trec_eval measure (--measure) or the "
        "task kind's defaults (ARQMath's prime measures nDCG', MAP', P'@10; AR and P@1 for open "
        "QA). Reads files only: no database."
    )
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("runs", nargs="+", metavar="RUN", help="run files (gzip allowed)")
        parser.add_argument("--qrels", required=True, help=f"qrels file: {QRELS_FILE_HELP}")
        parser.add_argument(
            "--task",
            choices=["answer", "formula", "openqa", "document"],
            default="answer",
            dest="kind",
            help="the runs' task kind (document: TREC runs of docnos; without --measure it is "
            f"scored with {default_text('document')})",
        )
        parser.add_argument(
            "--formula-index", help="ARQMath formula index TSV (formula task: id -> visual id)"
        )
        parser.add_argument(
            "--answer-map",
            metavar="FILE",
            help="open QA: TSV of run tag, topic, answer id giving native Task 3 run files "
            "(topic rank score run sources answer) their answer ids",
        )
        parser.add_argument(
            "--teams",
            metavar="FILE",
            help="open QA: TSV of run tag, team; Lexical Overlap (LO, computed for native Task "
            "3 runs) leaves each team's own answers out of its references (default: each run "
            "is a team of its own)",
        )
        parser.add_argument(
            "--judgments",
            metavar="FILE",
            help="open QA: the app's judgments CSV (with the answers to the extra questions): "
            "MG and UI of native Task 3 runs, the shares of their answers marked "
            "machine-generated and as holding unrelated information",
        )
        parser.add_argument(
            "--tokenizer",
            choices=sorted(TOKENIZERS),
            default=DEFAULT_TOKENIZER,
            help="open QA: how LO splits answers into tokens (ARQMath-3 used MathBERTa's, "
            "which needs a model; named with the figure)",
        )
        parser.add_argument(
            "--average",
            choices=["all", "run"],
            default="all",
            help="mean over all qrels topics, a missing topic scoring 0 (ARQMath-1's "
            "published tables, the default), or over the run's own topics (ARQMath-2/3 "
            "scripts, trec_eval without -c); in the app each task sets it",
        )
        parser.add_argument("--format", choices=sorted(RENDERERS), default="table")
        parser.add_argument(
            "--measure",
            action="append",
            dest="measures",
            metavar="NAME",
            help="any trec_eval measure (map, P_10, P.5,10, ndcg_cut_10, bpref, ...) or "
            "ir_measures name (nDCG@10, AP(rel=2), P(rel=2,judged_only=True)@10, Judged@10); "
            "repeatable. Without it: the task kind's defaults (ARQMath's prime measures)",
        )
        parser.add_argument(
            "--relevance-level",
            type=int,
            default=1,
            metavar="N",
            help="with --measure: lowest grade counted relevant (trec_eval -l; default 1)",
        )
        parser.add_argument(
            "--judged-only",
            action="store_true",
            help="with --measure: drop unjudged documents first (ARQMath's prime measures)",
        )
        parser.add_argument(
            "--depth",
            type=int,
            metavar="M",
            help="with --measure: keep each topic's first M documents (trec_eval -M; cut before "
            "--judged-only drops unjudged ones, as trec_eval does)",
        )
        parser.add_argument(
            "--score-precision",
            choices=PRECISIONS,
            default="double",
            help="how scores are compared when ranking: double, as trec_eval 9.0.8 and later "
            "(the default), or float32, as trec_eval 9.0.7 and earlier, which computed older "
            "published figures (TREC-COVID 2020): scores closer than float32 can tell apart "
            "then tie and are ordered by docno",
        )
        parser.add_argument(
            "--per-topic",
            action="store_true",
            help="with --measure: per-topic values too (rows per topic; JSON per_topic)",
        )

        parser.add_argument(
            "--workers",
            type=int,
            metavar="N",
            help="with --measure: processes reading and scoring runs at once, each one run at "
            "a time (default: one per CPU this process may use; 1: all in this process)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["measures"]:
            options["measures"] = official_measure_names(options["kind"], [])
        if options["measures"]:
            self._measures(options)
            return
        for flag in ("judged_only", "per_topic", "depth", "workers"):
            if options[flag]:
                raise CommandError(f"--{flag.replace('_', '-')} needs --measure")
        try:
            rows = evaluate_run_files(
                options["qrels"],
                options["runs"],
                kind=options["kind"],
                formula_index=options["formula_index"],
                average=options["average"],
                answer_map=options["answer_map"],
                precision=options["score_precision"],
                teams=run_teams_read(options["teams"]) if options["teams"] else None,
                tokenizer=options["tokenizer"],
                judgments=options["judgments"],
            )
        except (
            QrelsFormatError,
            RunFileError,
            AnswerMapError,
            JudgmentsFileError,
            OSError,
        ) as error:
            raise CommandError(str(error)) from error
        if options["format"] != "json":
            for row in rows:
                for note in row["notes"]:  # type: ignore[attr-defined]
                    self.stderr.write(f"{row['file']}: {note}")
        self.stdout.write(RENDERERS[options["format"]](rows, options["kind"]), ending="")

    def _measures(self, options: dict[str, Any]) -> None:
        if options["depth"] is not None and options["depth"] < 1:
            raise CommandError(f"--depth must be at least 1, not {options['depth']}")
        if options["workers"] is not None and options["workers"] < 1:
            raise CommandError(f"--workers must be at least 1, not {options['workers']}")
        try:
            rows = evaluate_run_files_measures(
                options["qrels"],
                options["runs"],
                options["measures"],
                kind=options["kind"],
                formula_index=options["formula_index"],
                average=options["average"],
                relevance_level=options["relevance_level"],
                judged_only=options["judged_only"],
                depth=options["depth"],
                precision=options["score_precision"],
                per_topic=options["per_topic"],
                workers=options["workers"],
            )
        except (MeasureNameError, QrelsFormatError, RunFileError, OSError) as error:
            raise CommandError(str(error)) from error
        render = MEASURE_RENDERERS[options["format"]]
        self.stdout.write(render(rows, options["per_topic"]), ending="")
