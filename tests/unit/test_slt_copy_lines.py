"""slt_copy_lines() carries exactly what parse_slt() reads, as PostgreSQL COPY text."""

import csv
import io
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collection.core.formats.errors import ImportFileError
from collection.core.formats.formula_index import SltStats, parse_slt, slt_copy_lines
from tests.unit.test_collection_formats import copy_unescape

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "se_sample" / "formulas-slt.tsv"


def read_back(path: Path) -> tuple[list[tuple[int, str]], SltStats]:
    stats = SltStats()
    rows = []
    for line in slt_copy_lines(path, stats=stats):
        assert line.endswith("\n")
        formula_id, mathml = line[:-1].split("\t")
        rows.append((int(formula_id), copy_unescape(mathml) or ""))
    return rows, stats


def test_slt_copy_lines_carry_the_parsed_rows_when_reading_the_sample() -> None:
    rows, stats = read_back(SAMPLE)
    assert rows == [(r.formula_id, r.slt) for r in parse_slt(SAMPLE)]
    assert rows[-1] == (3, "")  # an empty cell: no MathML
    assert (stats.given, stats.ascending) == (3, False)  # ids 2, 5, 6, 3


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=50),
            st.text(
                alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\x00\r"),
                max_size=30,
            ),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_slt_copy_lines_agree_with_the_parser_when_given_any_cells(
    tmp_path_factory: pytest.TempPathFactory, cells: list[tuple[int, str]]
) -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter="\t", lineterminator="\n")
    writer.writerow(["id", "post_id", "formula"])
    for formula_id, mathml in cells:
        writer.writerow([formula_id, 7, mathml])
    path = tmp_path_factory.mktemp("slt") / "slt.tsv"
    path.write_text(buffer.getvalue(), encoding="utf-8")

    rows, stats = read_back(path)

    parsed = [(r.formula_id, r.slt) for r in parse_slt(path)]
    assert rows == parsed
    assert stats.given == sum(1 for _, mathml in parsed if mathml)
    ids = [formula_id for formula_id, _ in parsed]
    assert stats.ascending == all(a < b for a, b in pairwise(ids))


def test_slt_copy_lines_name_the_line_when_an_id_is_not_a_number(tmp_path: Path) -> None:
    path = tmp_path / "slt.tsv"
    path.write_text("id\tformula\n1\t<math/>\nx2\t<math/>\n", encoding="utf-8")
    with pytest.raises(ImportFileError, match=r"^slt.tsv line 3: id is not an integer: 'x2'"):
        list(slt_copy_lines(path))


def test_slt_copy_lines_leave_out_rows_without_mathml_when_told_but_count_them() -> None:
    stats = SltStats()
    lines = list(slt_copy_lines(SAMPLE, stats=stats, with_empty=False))
    assert [int(line.split("\t")[0]) for line in lines] == [2, 5, 6]  # 3 has an empty cell
    assert (stats.rows, stats.given) == (4, 3)
