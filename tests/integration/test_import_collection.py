"""import_collection against the project's Stack Exchange sample (PostgreSQL, COPY)."""

from collections.abc import Callable
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from pytest_django import DjangoAssertNumQueries

from collection.core.formats.errors import ImportFileError
from collection.core.formats.visual_ids import canonical_latex, computed_visual_id, visual_id_for
from collection.models import Comment, Formula, Post, Thread
from collection.services import CollectionImportReport, ImportProgress, collection_import
from tests.integration.collection_contents import mathml_of

pytestmark = pytest.mark.django_db

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "se_sample"
V3 = "id\tpost_id\tthread_id\ttype\tcomment_id\told_visual_id\tvisual_id\tissue\tformula\n"


def import_sample(**extra: Path) -> CollectionImportReport:
    return collection_import(
        posts=SAMPLE / "Posts.xml",
        comments=SAMPLE / "Comments.xml",
        formulas=extra.get("formulas", SAMPLE / "formulas-v3.tsv"),
        slt=extra.get("slt"),
    )


def snapshot() -> tuple[list[tuple[object, ...]], ...]:
    return (
        list(Thread.objects.order_by("id").values_list()),
        list(Post.objects.order_by("id").values_list()),
        list(Comment.objects.order_by("id").values_list()),
        list(Formula.objects.order_by("formula_id").values_list()),
    )


def test_sample_imports_threads_posts_comments_formulas_when_given_every_file() -> None:
    seen: list[ImportProgress] = []
    report = collection_import(
        posts=SAMPLE / "Posts.xml",
        comments=SAMPLE / "Comments.xml",
        formulas=SAMPLE / "formulas-v3.tsv",
        slt=SAMPLE / "formulas-slt.tsv",
        progress=seen.append,
    )
    assert report == CollectionImportReport(threads=2, posts=5, comments=2, formulas=8, slt=3)
    thread = Thread.objects.get(id=10)
    assert (thread.title, thread.tags) == (
        "Squares of reals are nonnegative",
        ["algebra-precalculus", "inequality"],
    )
    assert list(thread.posts.order_by("id").values_list("id", "kind", "score")) == [
        (10, 1, 7),
        (11, 2, 2),
        (12, 2, 11),
    ]
    assert Thread.objects.get(id=20).title == "Harmonic series & convergence"
    assert thread.accepted_answer_id == 12
    assert Thread.objects.get(id=20).accepted_answer_id is None
    assert not Post.objects.filter(id=30).exists()  # a tag wiki is not a thread
    assert "\n" in Post.objects.get(id=21).body
    assert Comment.objects.get(id=100).text == "Hint: consider $x<0$ and $x \\ge 0$ separately."
    five, six, seven = (Formula.objects.get(formula_id=i) for i in (5, 6, 7))
    assert (five.location, five.thread_id, five.visual_id) == ("title", 20, "5005")
    assert six.visual_id == five.visual_id  # one visual id, two instances
    assert (seven.location, seven.comment_id, seven.old_visual_id) == ("comment", 100, "905")
    assert Formula.objects.get(formula_id=4).issue == "d"
    # Given visual ids stay; SLT is stored alongside.
    assert Formula.objects.get(formula_id=2).visual_id == "5002"
    assert mathml_of(2).startswith("<math")
    assert Formula.objects.get(formula_id=8).visual_id == computed_visual_id(
        canonical_latex("|x|^2 \\geq 0")
    )
    assert list(dict.fromkeys(p.stage for p in seen)) == ["posts", "comments", "formulas", "slt"]
    last = {p.stage: p for p in seen}
    assert last["formulas"].rows == 8
    assert last["formulas"].bytes_read == last["formulas"].bytes_total > 0


def test_slt_recomputes_computed_visual_ids_when_the_index_gave_none() -> None:
    report = import_sample(formulas=SAMPLE / "formulas-5col.tsv", slt=SAMPLE / "formulas-slt.tsv")
    assert (report.formulas, report.slt) == (6, 3)
    ids = dict(Formula.objects.values_list("formula_id", "visual_id"))
    # 5 and 6 differ in LaTeX braces but render the same: their SLTs agree.
    assert ids[5] == ids[6] == visual_id_for(latex="", slt=mathml_of(5))
    assert ids[5] != computed_visual_id(canonical_latex("\\sum_{n=1}^\\infty \\frac{1}{n}"))
    # 3 has an empty SLT cell: its LaTeX-based id stays.
    assert ids[3] == computed_visual_id(canonical_latex("x^2 = x \\cdot x"))
    assert mathml_of(3) == ""


def test_slt_visual_ids_follow_the_latex_when_the_same_mathml_is_malformed(
    tmp_path: Path,
) -> None:
    formulas = tmp_path / "formulas.tsv"
    formulas.write_text(
        "id\tpost_id\tthread_id\ttype\tformula\n"
        "1\t10\t10\tquestion\tx\n2\t10\t10\tquestion\ty\n3\t10\t10\tquestion\tz\n",
        encoding="utf-8",
    )
    broken, good = "<math><mi>x</mi>", "<math><mi>z</mi></math>"
    slt = tmp_path / "slt.tsv"
    slt.write_text(f"id\tformula\n1\t{broken}\n2\t{broken}\n3\t{good}\n", encoding="utf-8")
    import_sample(formulas=formulas, slt=slt)
    ids = dict(Formula.objects.values_list("formula_id", "visual_id"))
    # One MathML, canonicalized once, but unusable: each formula's own LaTeX decides.
    assert ids[1] == visual_id_for(latex="x", slt=broken) == computed_visual_id("x")
    assert ids[2] == visual_id_for(latex="y", slt=broken) == computed_visual_id("y")
    assert ids[3] == visual_id_for(latex="z", slt=good) != computed_visual_id("z")


POSTS_HEAD = '<?xml version="1.0" encoding="utf-8"?>\n<posts>\n'
ORPHAN_ANSWER = (
    POSTS_HEAD + '  <row Id="40" PostTypeId="1" Title="t" Body="b" Tags="&lt;x&gt;"/>\n'
    '  <row Id="41" PostTypeId="2" ParentId="40" Body="ok"/>\n'
    '  <row Id="42" PostTypeId="2" ParentId="99" Body="lost"/>\n</posts>\n'
)
BAD_CASES: dict[str, tuple[str, str, str]] = {
    # name: (argument, file text, expected message)
    "malformed posts xml": (
        "posts",
        POSTS_HEAD + '  <row Id="40" PostTypeId="1" Body="b"/>\n  <row Id="41" Body="a<b"/>\n',
        "Posts.xml line 4: malformed XML",
    ),
    "answer without its question": (
        "posts",
        ORPHAN_ANSWER,
        "Posts.xml line 5: answer 42: its question 99 is not in the collection",
    ),
    # A post already stored is updated; one the file gives twice is refused.
    "post twice in the file": (
        "posts",
        POSTS_HEAD + '  <row Id="50" PostTypeId="1" Body="b"/>\n'
        '  <row Id="51" PostTypeId="2" ParentId="50" Body="one"/>\n'
        '  <row Id="51" PostTypeId="2" ParentId="50" Body="two"/>\n</posts>\n',
        "Posts.xml line 5: post 51 is repeated (first on line 4)",
    ),
    "comment twice in the file": (
        "comments",
        '<?xml version="1.0"?>\n<comments>\n  <row Id="100" PostId="12" Text="ok"/>\n'
        '  <row Id="100" PostId="11" Text="again"/>\n</comments>\n',
        "Comments.xml line 4: comment 100 is repeated (first on line 3)",
    ),
    "comment on a missing post": (
        "comments",
        '<?xml version="1.0"?>\n<comments>\n  <row Id="200" PostId="12" Text="ok"/>\n'
        '  <row Id="201" PostId="777" Text="lost"/>\n</comments>\n',
        "Comments.xml line 4: comment 201: post 777 is not in the collection",
    ),
    "formula row with a wrong column count": (
        "formulas",
        V3 + "30\t10\t10\tquestion\t\t1\t1\t\tx\n31\t10\t10\tquestion\t1\t1\t\ty\n",
        "latex.tsv line 3: 8 columns, the header has 9",
    ),
    "formula whose post is missing": (
        "formulas",
        V3 + "30\t10\t10\tquestion\t\t1\t1\t\tx\n31\t999\t10\tanswer\t\t1\t1\t\ty\n",
        "latex.tsv line 3: formula 31: post 999 is not in the collection",
    ),
    "formula whose comment is missing": (
        "formulas",
        V3 + "30\t10\t10\tcomment\t555\t1\t1\t\tx\n",
        "latex.tsv line 2: formula 30: comment 555 is not in the collection",
    ),
    "formula id twice": (
        "formulas",
        V3 + "30\t10\t10\tquestion\t\t1\t1\t\tx\n30\t11\t10\tanswer\t\t1\t1\t\ty\n",
        "latex.tsv line 3: formula 30 is repeated (first on line 2)",
    ),
    "unknown formula index header": (
        "formulas",
        "id\tpost\tlatex\n1\t10\tx\n",
        "latex.tsv line 1: unknown formula index header",
    ),
    "slt of a formula twice": (
        "slt",
        "id\tformula\n1\t<math><mi>x</mi></math>\n1\t<math><mi>y</mi></math>\n",
        "slt.tsv line 3: formula 1 is repeated (first on line 2)",
    ),
    "slt of a formula not in the index": (
        "slt",
        "id\tformula\n1\t<math><mi>x</mi></math>\n12345\t<math><mi>y</mi></math>\n",
        "slt.tsv line 3: formula 12345 is not in the formula index",
    ),
}
FILE_NAMES = {
    "posts": "Posts.xml",
    "comments": "Comments.xml",
    "formulas": "latex.tsv",
    "slt": "slt.tsv",
}


@pytest.mark.parametrize("case", list(BAD_CASES))
def test_bad_file_names_file_and_line_and_leaves_the_database_unchanged_when_imported(
    tmp_path: Path, case: str
) -> None:
    import_sample()
    before = snapshot()
    argument, text, message = BAD_CASES[case]
    path = tmp_path / FILE_NAMES[argument]
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ImportFileError) as caught:
        collection_import(**{argument: path})  # type: ignore[arg-type]
    assert str(caught.value).startswith(message)
    assert snapshot() == before


def test_failed_file_keeps_the_files_before_it_when_several_are_given(tmp_path: Path) -> None:
    bad = tmp_path / "latex.tsv"
    bad.write_text(V3 + "1\t10\t10\tquestion\t\t1\t1\t\tx\n2\t404\t10\tanswer\t\t1\t1\t\ty\n")
    with pytest.raises(ImportFileError, match=r"latex\.tsv line 3: formula 2: post 404"):
        import_sample(formulas=bad)
    assert (Post.objects.count(), Comment.objects.count(), Formula.objects.count()) == (5, 2, 0)


def test_answer_before_its_question_loads_when_the_question_comes_later(tmp_path: Path) -> None:
    posts = tmp_path / "Posts.xml"
    posts.write_text(
        POSTS_HEAD + '  <row Id="8" PostTypeId="2" ParentId="9" Body="early"/>\n'
        '  <row Id="9" PostTypeId="1" Title="late" Body="q"/>\n</posts>\n'
    )
    assert collection_import(posts=posts) == CollectionImportReport(threads=1, posts=2)
    assert Post.objects.get(id=8).thread_id == 9


@pytest.mark.parametrize(
    ("arguments", "check"),
    [
        (
            ["--posts", "Posts.xml", "--comments", "Comments.xml", "--formulas", "formulas-v3.tsv"],
            lambda out: "2 threads, 5 posts, 2 comments, 8 formulas, 0 with SLT" in out,
        ),
    ],
)
def test_import_collection_command_prints_counts_when_files_import(
    capsys: pytest.CaptureFixture[str], arguments: list[str], check: Callable[[str], bool]
) -> None:
    call_command(
        "import_collection",
        *[a if a.startswith("--") else str(SAMPLE / a) for a in arguments],
    )
    assert check(capsys.readouterr().out)


def test_import_collection_command_fails_with_file_and_line_when_a_file_is_bad(
    tmp_path: Path,
) -> None:
    bad = tmp_path / "latex.tsv"
    bad.write_text(V3 + "1\t10\t10\tsidebar\t\t1\t1\t\tx\n")
    with pytest.raises(CommandError, match=r"^latex.tsv line 2: unknown formula type 'sidebar'"):
        call_command("import_collection", "--formulas", str(bad))
    with pytest.raises(CommandError, match="nothing to import"):
        call_command("import_collection")


@pytest.mark.parametrize(
    ("model", "shown"),
    [
        ("thread", "Squares of reals"),
        ("post", "answer"),
        ("comment", "Comment 100"),
        ("formula", "5005"),
    ],
)
def test_admin_lists_the_imported_collection_when_an_organizer_browses_it(
    admin_client: Client,
    django_assert_max_num_queries: DjangoAssertNumQueries,
    model: str,
    shown: str,
) -> None:
    import_sample()
    with django_assert_max_num_queries(8):
        response = admin_client.get(reverse(f"admin:collection_{model}_changelist"))
    assert response.status_code == 200
    assert shown in response.content.decode()
