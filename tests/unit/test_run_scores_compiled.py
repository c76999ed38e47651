"""The compiled reader (``evaluation/core/_run_scores.c``) reads a run exactly as the Python
reader does, or leaves it to Python: it never reads a file differently, hostile ones included."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluation.core.runfiles import (
    COLUMNS,
    WIDTH,
    RunFileError,
    compiled_reader,
    read_evaluation_run,
)
from evaluation.core.runfiles.fast import _fast_scores
from evaluation.core.runfiles.layout import _text_and_format
from pooling.core.formats import RunFormat

if compiled_reader.run_scores is None:
    if os.environ.get("CI") == "true":
        pytest.fail("evaluation.core._run_scores is not built: `pip install -e .` builds it (gcc)")
    pytest.skip("evaluation.core._run_scores is not built (no C compiler)", allow_module_level=True)

run_scores = compiled_reader.run_scores


def compiled(text: str, run_format: RunFormat = RunFormat.TREC) -> object:
    t, d, s, g = COLUMNS[run_format]
    return run_scores(text, WIDTH[run_format], t, d, s, g, run_format is RunFormat.TREC)


def python(text: str, run_format: RunFormat = RunFormat.TREC) -> object:
    return _fast_scores(text.splitlines(), run_format)


def read(text: str, *, in_c: bool) -> object:
    """What evaluation reads from the file, with or without the compiled module: its tag and
    scores, or the error."""
    built = compiled_reader.run_scores
    compiled_reader.run_scores = built if in_c else None  # type: ignore[assignment]
    try:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "run.txt"
            path.write_bytes(text.encode())
            try:
                run = read_evaluation_run(path, task_kind="document")
            except RunFileError as error:
                return str(error)
            return run.tag, run.scores()
    finally:
        compiled_reader.run_scores = built


# (common, rare) values of each part of a line: a clean file takes only common ones, and the
# other files a rare one a tenth of the time, so that most files are read in C and every
# quirk still turns up.
SCORES = (
    ["1", "-0.5", ".5", "1.", "+2", "1e-3", "1E5", "100000.1546100", "100000.1476190", "0", "-0"],
    ["1_0", "nan", "inf", "-Infinity", "1e400", "0x1p3", "1e", "-", ".", "", "1.2.3", "4" * 70,
     "0." + "1" * 80, "\u0663", "1\x00"],
)  # fmt: skip
SPACES = ([" ", "\t", "  "], [" \t ", "\x1f", "\x0b", "\u00a0"])
ENDS = (["\n", "\r\n"], ["\r", "\x0c", "\x1c", "\n\n", "\n   \n", "\u2028"])
KINDS = (["row"], ["comment", "blank", "wide", "short"])
TOPICS = (["1", "2", "10"], ["#3", "1#"])
TAGS = (["run"], ["other", "#"])
LEADS = ([""], [" ", "\t"])
FIELD = st.text(alphabet="abcXYZ019-_.#:/", min_size=1, max_size=6)


@st.composite
def run_lines(draw: st.DrawFn) -> str:
    """A run file of TREC lines with every quirk a participant's file may have."""
    clean = draw(st.booleans())

    def pick(values: tuple[list[str], list[str]]) -> str:
        common, rare = values
        if clean or draw(st.integers(0, 9)):
            return draw(st.sampled_from(common))
        return draw(st.sampled_from(rare))

    lines = []
    for _ in range(draw(st.integers(0, 12))):
        kind = pick(KINDS)
        doc = draw(st.sampled_from(["d1", "d2", "D3", "doc-4"]) | FIELD)
        rank = draw(st.sampled_from(["1", "0", "x"]))
        fields = [pick(TOPICS), "Q0", doc, rank, pick(SCORES), pick(TAGS)]
        if kind == "comment":
            fields = ["#", *fields]
        elif kind == "blank":
            fields = []
        elif kind == "wide":
            fields += draw(st.lists(FIELD, min_size=1, max_size=3))
        elif kind == "short":
            fields = fields[: draw(st.integers(1, 5))]
        lines.append(pick(LEADS) + pick(SPACES).join(fields) + pick(ENDS))
    return "".join(lines)


@settings(max_examples=1000, deadline=None)
@given(run_lines())
@example("1 Q0 d1 1 0.5 run\n1 Q0 d1 2 nan run\n")  # a repeated document's score is not read
@example("1 Q0 d1 1 1e308 run\n1 Q0 d2 2 1e308 run\n")  # finite scores with an infinite sum
def test_a_run_reads_the_same_with_or_without_c(text: str) -> None:
    assert read(text, in_c=True) == read(text, in_c=False)


@pytest.mark.parametrize("run_format", [RunFormat.TREC, RunFormat.ARQMATH_ANSWER])
def test_a_plain_run_is_read_in_c(run_format: RunFormat) -> None:
    rows = (
        ["1 Q0 b 1 2.5 run", "1 Q0 a 2 2.5 run", "2 Q0 a 1 -1e-3 run", "1 Q0 c 3 .5 run"]
        if run_format is RunFormat.TREC
        else ["1 b 1 2.5 run", "1 a 2 2.5 run", "2 a 1 -1e-3 run", "1 c 3 .5 run"]
    )
    text = "# a comment\r\n" + "\r\n".join(rows) + "\r\n\r\n"
    expected = ("run", {"1": {"b": 2.5, "a": 2.5, "c": 0.5}, "2": {"a": -0.001}})
    assert compiled(text, run_format) == expected == python(text, run_format)


@pytest.mark.parametrize(
    "text",
    [
        "1 Q0 d 1 0x1p3 run\n",  # hexadecimal: strtod reads it, Python's float() does not
        "1 Q0 d 1 1_0 run\n",  # underscores: float() reads them, trec_eval does not
        "1 Q0 d 1 inf run\n",
        "1 Q0 d 1 1e999 run\n",
        "1 Q0 d 1 0.5 run\n1 Q0 e 2 0.4 other\n",  # two run tags
        "1 Q0 d 1 0.5\n",  # five columns
        "1 Q0 d 1 " + "5" * 64 + " run\n",  # a score longer than the C buffer
        "1 Q0 d\x0b1 0.5 run\n",  # whitespace Python splits on and C leaves to it
    ],
)
def test_what_c_leaves_to_python(text: str) -> None:
    assert compiled(text) is None


def test_a_long_score_falls_back_and_is_read_by_python() -> None:
    text = "1 Q0 d 1 0." + "1" * 100 + " run\n"
    assert compiled(text) is None
    assert python(text) == ("run", {"1": {"d": 0.1111111111111111}})


def test_the_columns_are_checked() -> None:
    with pytest.raises(ValueError):
        run_scores("1 Q0 d 1 0.5 run\n", 6, 0, 2, 9, 5, True)
    with pytest.raises(ValueError):
        run_scores("1 Q0 d 1 0.5 run\n", 99, 0, 2, 4, 5, True)


@pytest.mark.parametrize("comments", [65_530, 65_536, 70_000])
def test_the_layout_is_told_by_a_whole_line(comments: int, tmp_path: Path) -> None:
    """Comment lines fill the head the layout is read from: the first answer line, cut or not
    at the head's end, still tells an ARQMath Task 1 run, and the run is read on the fast path."""
    comment = "# " + "x" * 97 + "\n"
    text = comment * (comments // len(comment)) + "#" * (comments % len(comment)) + "\n"
    text += "1\t100\t1\t0.5\trun\n1\t200\t2\t0.4\trun\n"
    path = tmp_path / "task1.tsv"
    path.write_text(text)
    assert _text_and_format(path, None)[1] is RunFormat.ARQMATH_ANSWER
    run = read_evaluation_run(path)
    assert (run.tag, run.scores()) == ("run", {"1": {"100": 0.5, "200": 0.4}})
