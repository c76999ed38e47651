"""Two versions of a synthetic Stack Exchange dump, for the import benchmark and re-import tests.

``write_dump(folder, posts=N, formulas=M, newer=0.0)`` streams ``Posts.xml``, ``Comments.xml``,
an ARQMath v3 formula index and its SLT TSV. Every row is a function of its id, so the same
arguments give byte-identical files. ``newer=0.01`` writes the next dump: about 0.5% of each
table's rows are new (ids after the last) and 0.5% changed (a post's body and score, a
question's title, a comment's text, a formula's LaTeX and so its MathML); nothing is removed.
``DumpFiles.expected`` says, per table, how many rows importing the newer dump over the first
must add, update and leave unchanged.

Posts: ids 1..N, a question every 4 ids (1, 5, 9, ...) followed by its three answers.
Comments: N // 2, on posts spread over the collection. Formulas: one in 20 is in a comment,
one in 50 has no visual id (computed from LaTeX, then from SLT), one in 97 has an empty SLT cell.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

QUESTION_EVERY = 4
WORDS = [
    "prove",
    "show",
    "that",
    "the",
    "function",
    "is",
    "continuous",
    "bounded",
    "integral",
    "series",
    "converges",
    "limit",
    "matrix",
    "eigenvalue",
    "group",
    "ring",
    "field",
    "prime",
    "divisor",
    "triangle",
    "probability",
]
LATEX = (
    r"x^{%d}+y^{%d}=z",
    r"\frac{%d}{n^{%d}}",
    r"\sum_{k=1}^{%d} k^{%d}",
    r"\int_0^{%d} e^{-t^{%d}}\,dt",
    r"\sqrt{%d+\alpha_{%d}}",
    r"A_{%d}\otimes B_{%d}",
)
V3_HEADER = "id\tpost_id\tthread_id\ttype\tcomment_id\told_visual_id\tvisual_id\tissue\tformula\n"
SLT_HEADER = "id\tpost_id\tthread_id\ttype\tformula\n"


@dataclass(frozen=True)
class Expected:
    added: int = 0
    updated: int = 0
    unchanged: int = 0


@dataclass(frozen=True)
class DumpFiles:
    posts: Path
    comments: Path
    formulas: Path
    slt: Path
    counts: dict[str, int]  # rows per table: threads, posts, comments, formulas, slt (MathML)
    expected: dict[str, Expected] = field(default_factory=dict)  # over the first dump


class _Version:
    """Which ids a dump holds and which of them it changes, for one table of ``base`` rows."""

    def __init__(self, base: int, newer: float, *, multiple: int = 1) -> None:
        self.base = base
        added = round(base * newer / 2) if newer else 0
        self.last = base + -(-added // multiple) * multiple  # whole threads for posts
        # A changed row: a multiplicative hash of its id falls in the first ``share`` part.
        self.share = round(base * newer / 2) / base if newer and base else 0.0

    def changed(self, row_id: int) -> bool:
        return row_id <= self.base and (row_id * 2654435761) % 4294967296 < self.share * 2**32

    def expected(self, ids: range) -> Expected:
        added = sum(1 for i in ids if i > self.base)
        updated = sum(1 for i in ids if self.changed(i))
        return Expected(added, updated, len(ids) - added - updated)


def _attr(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )


def _thread_of(post_id: int) -> int:
    return post_id - (post_id - 1) % QUESTION_EVERY


def _words(seed: int, count: int) -> str:
    return " ".join(
        WORDS[((seed + 1) * (i + 3) * 2654435761 >> 11) % len(WORDS)] for i in range(count)
    )


def _latex(formula_id: int, edited: bool) -> tuple[str, int]:
    shape = formula_id % len(LATEX)
    a, b = (formula_id // 7) % 30, (formula_id // 211) % 30
    latex = LATEX[shape] % (a, b)
    return (latex + " + 1", 0) if edited else (latex, shape * 10_000 + a * 100 + b)


def formula_visual_id(formula_id: int) -> int:
    """The visual id the first dump writes for ``formula_id`` (0: the cell is left empty and
    the importer computes one from the LaTeX)."""
    _, visual_id = _latex(formula_id, False)
    return 0 if formula_id % 50 == 7 else visual_id


def formula_post(formula_id: int, posts: int) -> int | None:
    """The post holding ``formula_id`` in a dump of ``posts`` posts; None for a formula in a
    comment (one in 20)."""
    return None if formula_id % 20 == 0 else (formula_id * 7919) % posts + 1


def is_answer(post_id: int) -> bool:
    return post_id % QUESTION_EVERY != 1


def _write_posts(path: Path, version: _Version) -> None:
    with path.open("w", encoding="utf-8") as out:
        out.write('<?xml version="1.0" encoding="utf-8"?>\n<posts>\n')
        for post_id in range(1, version.last + 1):
            edited = version.changed(post_id)
            latex, _ = _latex(post_id, False)
            words = _words(post_id, 20 + post_id % 60) + (" (edited)" if edited else "")
            body = _attr(f'<p>{words} <span class="math-container">${latex}$</span>.</p>')
            date = f"20{10 + post_id % 12}-0{1 + post_id % 9}-1{post_id % 10}T12:00:00.000"
            score = post_id % 53 - 3 + edited
            if post_id % QUESTION_EVERY == 1:
                title = _attr(_words(post_id + 1, 8) + (" (edited)" if edited else ""))
                out.write(
                    f'  <row Id="{post_id}" PostTypeId="1" CreationDate="{date}" Score="{score}" '
                    f'Body="{body}" OwnerUserId="{post_id % 977}" Title="{title}" '
                    f'Tags="&lt;calculus&gt;&lt;real-analysis&gt;" AnswerCount="3" />\n'
                )
            else:
                out.write(
                    f'  <row Id="{post_id}" PostTypeId="2" ParentId="{_thread_of(post_id)}" '
                    f'CreationDate="{date}" Score="{score}" Body="{body}" '
                    f'OwnerUserId="{post_id % 977}" />\n'
                )
        out.write("</posts>\n")


def _comment_post(comment_id: int, posts: int) -> int:
    return (comment_id * 7) % posts + 1


def _write_comments(path: Path, version: _Version, posts: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        out.write('<?xml version="1.0" encoding="utf-8"?>\n<comments>\n')
        for comment_id in range(1, version.last + 1):
            text = _attr(
                _words(comment_id, 12) + (" (edited)" if version.changed(comment_id) else "")
            )
            out.write(
                f'  <row Id="{comment_id}" PostId="{_comment_post(comment_id, posts)}" '
                f'Score="{comment_id % 5}" Text="{text}" '
                f'CreationDate="2019-0{1 + comment_id % 9}-02T10:00:00.000" '
                f'UserId="{comment_id % 331}" />\n'
            )
        out.write("</comments>\n")


def _mathml(latex: str) -> str:
    """A LaTeXML-like Presentation MathML cell, csv-quoted as ARQMath's SLT TSV has it."""
    tokens = "".join(
        f"<mi>{c}</mi>" if c.isalpha() else f"<mn>{c}</mn>" for c in latex if c.isalnum()
    )
    alt = latex.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
    math = (
        f'<math xmlns="http://www.w3.org/1998/Math/MathML" alttext="{alt}" display="inline">'
        f'<semantics><mrow>{tokens}</mrow><annotation encoding="application/x-tex">{alt}'
        "</annotation></semantics></math>"
    )
    return '"' + math.replace('"', '""') + '"'


def _write_formulas(index: Path, slt: Path, version: _Version, posts: int, comments: int) -> int:
    """The index and its SLT TSV; returns the rows with MathML."""
    given = 0
    with index.open("w", encoding="utf-8") as out, slt.open("w", encoding="utf-8") as mathml:
        out.write(V3_HEADER)
        mathml.write(SLT_HEADER)
        for formula_id in range(1, version.last + 1):
            latex, visual_id = _latex(formula_id, version.changed(formula_id))
            comment = ""
            if formula_id % 20 == 0:
                comment_id = (formula_id // 20) % comments + 1
                post_id = _comment_post(comment_id, posts)
                kind, comment = "comment", str(comment_id)
            else:
                post_id = formula_post(formula_id, posts) or 0
                kind = "answer" if is_answer(post_id) else "question"
            thread_id = _thread_of(post_id)
            visual = "" if formula_id % 50 == 7 or not visual_id else str(visual_id)
            cells = f"{formula_id}\t{post_id}\t{thread_id}\t{kind}"
            out.write(f"{cells}\t{comment}\t{visual}\t{visual}\t\t{latex}\n")
            cell = "" if formula_id % 97 == 3 else _mathml(latex)
            given += bool(cell)
            mathml.write(f"{cells}\t{cell}\n")
    return given


def write_dump(folder: Path, *, posts: int, formulas: int, newer: float = 0.0) -> DumpFiles:
    """Write the dump (see the module docstring) into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    files = DumpFiles(
        folder / "Posts.xml",
        folder / "Comments.xml",
        folder / "formulas.tsv",
        folder / "slt.tsv",
        counts={},
    )
    post_version = _Version(posts, newer, multiple=QUESTION_EVERY)
    comment_version = _Version(posts // 2, newer)
    formula_version = _Version(formulas, newer)
    _write_posts(files.posts, post_version)
    _write_comments(files.comments, comment_version, posts)
    given = _write_formulas(files.formulas, files.slt, formula_version, posts, posts // 2)
    post_ids = range(1, post_version.last + 1)
    questions = range(1, post_version.last + 1, QUESTION_EVERY)
    formula_ids = range(1, formula_version.last + 1)
    files.counts.update(
        threads=len(questions),
        posts=len(post_ids),
        comments=comment_version.last,
        formulas=formula_version.last,
        slt=given,
    )
    if newer:
        changed = formula_version.expected(formula_ids)
        with_mathml = sum(
            1 for i in formula_ids if (i > formulas or formula_version.changed(i)) and i % 97 != 3
        )
        files.expected.update(
            threads=post_version.expected(questions),
            posts=post_version.expected(post_ids),
            comments=comment_version.expected(range(1, comment_version.last + 1)),
            formulas=changed,
            slt=Expected(0, with_mathml, len(formula_ids) - with_mathml),
        )
    return files
