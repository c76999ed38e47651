"""Visual-id canonicalization: what counts as "looks the same" (pure, no database)."""

import re
from pathlib import Path

import pytest

from collection.core.formats.topics import parse_topic_formulas
from collection.core.formats.visual_ids import (
    MathMLError,
    canonical_latex,
    canonical_slt,
    computed_visual_id,
    visual_id_for,
)

NS = 'xmlns="http://www.w3.org/1998/Math/MathML"'


@pytest.mark.parametrize(
    ("one", "other"),
    [
        pytest.param(
            f'<math {NS}><mi mathvariant="bold">x</mi></math>',
            f"<math {NS}><mi>x</mi></math>",
            id="mathvariant ignored",
        ),
        pytest.param(
            f'<math {NS} alttext="x" display="block"><mi>x</mi></math>',
            "<math><mi>x</mi></math>",
            id="attributes and namespace ignored",
        ),
        pytest.param(
            f"<math {NS}><mi>\U0001d465</mi></math>",
            "<math><mi>x</mi></math>",
            id="styled unicode letter folds (NFKC)",
        ),
        pytest.param(
            "<math>\n  <mrow>\n    <mi> x </mi>\n    <mo>+</mo>\n  </mrow>\n</math>",
            "<math><mi>x</mi><mo>+</mo></math>",
            id="white space and inferred mrow",
        ),
        pytest.param(
            "<math><semantics><mi>x</mi><annotation encoding='application/x-tex'>x</annotation>"
            "</semantics></math>",
            "<math><mi>x</mi></math>",
            id="semantics annotation dropped",
        ),
        pytest.param(
            "<math><msup><mrow><mi>x</mi></mrow><mrow><mn>2</mn></mrow></msup></math>",
            "<math><msup><mi>x</mi><mn>2</mn></msup></math>",
            id="single-child mrow collapses",
        ),
        pytest.param(
            '<?xml version="1.0" encoding="UTF-8"?> <math><mstyle><mi>x</mi></mstyle></math>',
            "<math><mi>x</mi></math>",
            id="declaration and mstyle",
        ),
    ],
)
def test_canonical_slt_is_equal_when_only_presentation_details_differ(one: str, other: str) -> None:
    assert canonical_slt(one) == canonical_slt(other)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (
            "<math><msup><mi>x</mi><mn>2</mn></msup></math>",
            "<math><msub><mi>x</mi><mn>2</mn></msub></math>",
        ),
        (
            "<math><mi>x</mi><mo>+</mo><mi>y</mi></math>",
            "<math><mi>y</mi><mo>+</mo><mi>x</mi></math>",
        ),
        ("<math><mi>x</mi></math>", "<math><mn>x</mn></math>"),
        ("<math><mfrac><mi>a</mi><mi>b</mi></mfrac></math>", "<math><mi>a</mi><mi>b</mi></math>"),
    ],
)
def test_canonical_slt_differs_when_the_layout_differs(one: str, other: str) -> None:
    assert canonical_slt(one) != canonical_slt(other)


def test_canonical_slt_reads_depth_first_with_leaf_text() -> None:
    mathml = "<math><mrow><msup><mi>x</mi><mn>2</mn></msup><mo>=</mo><mn>4</mn></mrow></math>"
    assert canonical_slt(mathml) == "mrow(msup(mi[x]mn[2])mo[=]mn[4])"


@pytest.mark.parametrize(
    "broken",
    [
        '<math alttext="\\sum\\|e\\|<1"><mo>&lt;</mo></math>',  # '<' inside an attribute
        '<math alttext="a"><mo><</mo></math>',  # bare '<' as an operator
        "<math><mo>&</mo></math>",  # bare ampersand
    ],
)
def test_canonical_slt_repairs_the_breakage_of_real_arqmath_files_when_not_xml(
    broken: str,
) -> None:
    assert canonical_slt(broken).startswith("mo[")


def test_canonical_slt_raises_when_mathml_is_beyond_repair() -> None:
    with pytest.raises(MathMLError, match="malformed MathML"):
        canonical_slt("<math><mi>x</mo>")


@pytest.mark.parametrize(
    ("latex", "expected"),
    [
        ("x ^ 2", "x^2"),
        ("\\frac{ a }{b}\n", "\\frac{a}{b}"),
        ("\t\\alpha \u00a0+ 1", "\\alpha+1"),
        ("", ""),
    ],
)
def test_canonical_latex_drops_white_space_when_given_latex(latex: str, expected: str) -> None:
    assert canonical_latex(latex) == expected


def test_computed_visual_id_is_c_and_sixteen_hex_digits_when_computed() -> None:
    value = computed_visual_id("mi[x]")
    assert re.fullmatch(r"c[0-9a-f]{16}", value)
    assert value == computed_visual_id("mi[x]")
    assert value != computed_visual_id("mi[y]")


def test_visual_id_for_prefers_slt_when_there_is_one() -> None:
    slt = "<math><mi>x</mi></math>"
    assert visual_id_for(latex="x", slt=slt) == computed_visual_id("mi[x]")
    assert visual_id_for(latex=" x ", slt="") == computed_visual_id("x")
    # Two LaTeX spellings with one rendering share the SLT-based id.
    assert visual_id_for(latex="x^2", slt="<math><msup><mi>x</mi><mn>2</mn></msup></math>") == (
        visual_id_for(latex="x^{2}", slt="<math><msup><mi>x</mi><mn>2</mn></msup></math>")
    )


def test_visual_id_for_uses_latex_when_the_slt_is_beyond_repair() -> None:
    assert visual_id_for(latex="a < b", slt="<math><mi>x</mo>") == computed_visual_id("a<b")


def test_every_real_topic_slt_canonicalizes_when_read_from_arqmath(arqmath_data: Path) -> None:
    broken = 0
    for year in ("2020", "2021", "2022"):
        for row in parse_topic_formulas(arqmath_data / "topics" / year / "topic-formulas-slt.tsv"):
            if not row.text.strip():
                continue
            try:
                assert canonical_slt(row.text)
            except MathMLError:
                broken += 1
    # One 2022 formula (q_976) has "0<r" inside <mtext>: not XML even after repair.
    assert broken <= 1
