"""The fixed vocabulary of the synthetic collection: subjects, formula shapes, sentences.

The vocabulary does not depend on the seed, so a formula's visual id is stable across runs of
the generator: the seed only decides which formulas a post uses. Formulas are drawn with a
Zipf-like skew, so a few shapes (``x``, ``n \\in \\mathbb{N}``) recur in many posts and visual
ids group many instances, as in ARQMath. Each formula has one or two LaTeX spellings (spacing)
that share its visual id.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

FIRST_VISUAL_ID = 100_000


@dataclass(frozen=True, slots=True)
class FormulaShape:
    visual_id: int
    spellings: tuple[str, ...]  # LaTeX spellings of the same rendered formula
    subject: int  # index into SUBJECTS; -1: common to every subject
    family: int  # template the shape came from: near-misses share a family


@dataclass(frozen=True, slots=True)
class Subject:
    name: str
    tags: tuple[str, ...]
    titles: tuple[str, ...]  # "%(f)s" is a formula of the subject
    # Templates with %(p)s-style slots and the values each slot takes.
    families: tuple[tuple[str, dict[str, tuple[str, ...]]], ...]


SUBJECTS: tuple[Subject, ...] = (
    Subject(
        "calculus",
        ("calculus", "integration", "derivatives", "limits"),
        ("How to evaluate %(f)s?", "Computing %(f)s by substitution", "Why does %(f)s converge?"),
        (
            (r"\int_{0}^{%(b)s} x^{%(n)s}\,dx", {"b": ("1", "2", r"\pi"), "n": ("2", "3", "n")}),
            (r"\lim_{x \to %(a)s} \frac{\sin x}{x}", {"a": ("0", r"\infty")}),
            (r"\frac{d}{dx} %(g)s", {"g": (r"e^{x^2}", r"\ln x", r"\sin(2x)", r"x^x")}),
            (r"\int %(g)s \, dx", {"g": (r"\frac{1}{1+x^2}", r"x e^{x}", r"\sec^2 x")}),
        ),
    ),
    Subject(
        "linear-algebra",
        ("linear-algebra", "matrices", "eigenvalues-eigenvectors"),
        ("Eigenvalues of %(f)s", "Is %(f)s always invertible?", "Norm inequality %(f)s"),
        (
            (r"\|A\|_{%(p)s}", {"p": ("1", "2", r"\infty", "F")}),
            (r"\det(%(m)s)", {"m": ("A - \\lambda I", "AB", "A^T A")}),
            (r"A = %(m)s", {"m": ("P D P^{-1}", "Q R", "U \\Sigma V^T")}),
            (r"\operatorname{rank}(%(m)s) = %(r)s", {"m": ("A", "AB"), "r": ("n", "1")}),
        ),
    ),
    Subject(
        "number-theory",
        ("elementary-number-theory", "modular-arithmetic", "prime-numbers"),
        ("Prove that %(f)s for all primes", "Solving %(f)s", "Show %(f)s has no solutions"),
        (
            (r"a^{%(e)s} \equiv 1 \pmod{%(m)s}", {"e": ("p-1", r"\phi(n)"), "m": ("p", "n")}),
            (r"\gcd(%(a)s, %(b)s) = 1", {"a": ("a", "n"), "b": ("b", "n+1")}),
            (r"x^2 \equiv %(r)s \pmod{p}", {"r": ("-1", "2", "a")}),
            (r"%(n)s \mid 2^{n} - 1", {"n": ("n", "3", "7")}),
        ),
    ),
    Subject(
        "probability",
        ("probability", "probability-distributions", "expectation"),
        ("Expected value of %(f)s", "Distribution of %(f)s", "Computing %(f)s"),
        (
            (r"P(X %(op)s %(k)s)", {"op": ("=", r"\geq", "<"), "k": ("k", "1", "n")}),
            (r"E[%(x)s]", {"x": ("X", "X^2", "e^{tX}", "XY")}),
            (r"\binom{n}{k} p^k (1-p)^{n-k}", {}),
            (r"\operatorname{Var}(%(x)s)", {"x": ("X", "X+Y", "aX+b")}),
        ),
    ),
    Subject(
        "real-analysis",
        ("real-analysis", "sequences-and-series", "convergence-divergence"),
        ("Does %(f)s converge?", "Limit of the sequence %(f)s", "Uniform convergence of %(f)s"),
        (
            (r"\sum_{n=1}^{\infty} \frac{1}{n^{%(p)s}}", {"p": ("2", "p", r"1+\epsilon")}),
            (
                r"\lim_{n \to \infty} %(a)s",
                {"a": (r"\left(1+\frac{1}{n}\right)^n", r"\sqrt[n]{n}")},
            ),
            (r"|f(x) - f(y)| \leq %(c)s |x-y|", {"c": ("L", "1", r"\frac{1}{2}")}),
            (r"\sup_{x \in %(s)s} f(x)", {"s": ("[0,1]", r"\mathbb{R}", "A")}),
        ),
    ),
    Subject(
        "combinatorics",
        ("combinatorics", "binomial-coefficients", "generating-functions"),
        ("Counting argument for %(f)s", "Combinatorial proof of %(f)s", "Closed form of %(f)s"),
        (
            (r"\sum_{k=0}^{n} \binom{n}{k}%(t)s", {"t": ("", "^2", " (-1)^k")}),
            (r"\binom{%(a)s}{%(b)s}", {"a": ("n", "2n", "n+1"), "b": ("k", "n")}),
            (r"F_{n+1} = F_n + F_{n-1}", {}),
            (r"\frac{1}{1-%(x)s}", {"x": ("x", "x-x^2", "2x")}),
        ),
    ),
    Subject(
        "complex-analysis",
        ("complex-analysis", "contour-integration", "residue-calculus"),
        ("Residue of %(f)s", "Evaluating %(f)s with contours", "Roots of %(f)s"),
        (
            (r"\oint_{|z|=%(r)s} \frac{dz}{z^2+1}", {"r": ("1", "2")}),
            (r"z = \sqrt[%(n)s]{s} e^{\frac{i\varphi}{%(n)s}}", {"n": ("n", "3")}),
            (r"e^{i%(t)s} = \cos %(t)s + i \sin %(t)s", {"t": (r"\theta", "x")}),
            (r"\operatorname{Res}(f, %(z)s)", {"z": ("0", "i", "z_0")}),
        ),
    ),
    Subject(
        "abstract-algebra",
        ("abstract-algebra", "group-theory", "ring-theory"),
        ("Is %(f)s a subgroup?", "Order of elements in %(f)s", "Quotient %(f)s"),
        (
            (r"\mathbb{Z}/%(n)s\mathbb{Z}", {"n": ("n", "p", "6")}),
            (r"|G| = %(o)s", {"o": ("p^2", "pq", "2n")}),
            (r"G / %(h)s \cong %(k)s", {"h": ("N", "Z(G)"), "k": ("H", r"\mathbb{Z}_2")}),
            (r"\varphi(%(a)s) = \varphi(a)\varphi(b)", {"a": ("ab", "a+b")}),
        ),
    ),
    Subject(
        "trigonometry",
        ("trigonometry", "algebra-precalculus"),
        ("Simplify %(f)s", "Proving the identity %(f)s", "Solve %(f)s for x"),
        (
            (r"\sin^2 %(t)s + \cos^2 %(t)s = 1", {"t": ("x", r"\theta")}),
            (r"\tan(%(a)s)", {"a": ("a+b", "2x", r"\frac{x}{2}")}),
            (r"\cos(%(a)s) = %(v)s", {"a": ("x", "2x"), "v": (r"\frac{1}{2}", "0")}),
        ),
    ),
    Subject(
        "inequality",
        ("inequality", "cauchy-schwarz-inequality", "a.m.-g.m.-inequality"),
        ("Prove %(f)s", "Sharpness of %(f)s", "Using AM-GM to show %(f)s"),
        (
            (r"\frac{a+b}{2} \geq \sqrt{ab}", {}),
            (r"\left(\sum a_i b_i\right)^2 \leq %(r)s", {"r": (r"\sum a_i^2 \sum b_i^2",)}),
            (r"%(x)s \leq e^{x}", {"x": ("1+x", "x+1", r"\frac{x^2}{2}")}),
            (r"|a+b| \leq |a| + |b|", {}),
        ),
    ),
)

# Shapes every subject uses: the short formulas that recur all over a real collection.
COMMON: tuple[tuple[str, dict[str, tuple[str, ...]]], ...] = (
    (r"%(v)s", {"v": ("x", "n", "f", "a", "p", "k", "A", "G")}),
    (r"%(v)s \in \mathbb{%(s)s}", {"v": ("n", "x"), "s": ("N", "R", "Z")}),
    (r"f(x) = %(g)s", {"g": ("x^2", "e^x", r"\frac{1}{x}")}),
    (r"\epsilon > 0", {}),
    (r"x^{%(n)s}", {"n": ("2", "3", "n")}),
)

INTRO = (
    "I am trying to understand why",
    "In my course we saw that",
    "While working on an exercise I found that",
    "My textbook claims that",
    "I was asked to show that",
)
ASK = (
    "Is there a simple way to see this?",
    "Any hint would be appreciated.",
    "What am I missing here?",
    "How should I approach this?",
    "Is my reasoning correct so far?",
)
ANSWER_OPENERS = (
    "Hint: consider",
    "Note that",
    "A cleaner way is to write",
    "You can use the fact that",
    "Start from",
    "By definition,",
)
ANSWER_MIDDLES = (
    "Then it follows that",
    "Combining the two gives",
    "In particular,",
    "Hence",
    "Applying this twice,",
)
ANSWER_COMMENTS = (
    "Nice answer, thanks!",
    "Could you explain the second step?",
    "Why can we assume %(f)s here?",
    "I think there is a typo in %(f)s.",
    "+1, very clear.",
)
QUESTION_COMMENTS = (
    "What have you tried so far?",
    "Is %(f)s part of the hypothesis?",
    "This is a duplicate of an older question.",
    "Please add some context.",
)
EXTERNAL_LINKS = (
    ("https://en.wikipedia.org/wiki/Mathematical_induction", "induction"),
    ("https://mathworld.wolfram.com/", "MathWorld"),
    ("https://arxiv.org/abs/1234.5678", "this paper"),
)


def _expand(template: str, slots: dict[str, tuple[str, ...]]) -> list[str]:
    names = sorted(slots)
    if not names:
        return [template]
    return [template % dict(zip(names, values, strict=True)) for values in _product(slots, names)]


def _product(slots: dict[str, tuple[str, ...]], names: list[str]) -> list[tuple[str, ...]]:
    return list(itertools.product(*(slots[name] for name in names)))


def _spaced(latex: str) -> str:
    """A second spelling that renders the same: spaces around binary relations and operators."""
    spaced = latex
    for op in ("=", "+", "<", r"\leq", r"\geq"):
        spaced = spaced.replace(f" {op} ", op).replace(op, f" {op} ")
    return " ".join(spaced.split())


def _build_shapes() -> tuple[FormulaShape, ...]:
    shapes: list[FormulaShape] = []
    families = [(-1, fam) for fam in COMMON] + [
        (index, fam) for index, subject in enumerate(SUBJECTS) for fam in subject.families
    ]
    for family, (subject, (template, slots)) in enumerate(families):
        for latex in _expand(template, slots):
            compact = " ".join(latex.split())
            spellings = tuple(dict.fromkeys((compact, _spaced(compact))))
            shapes.append(FormulaShape(FIRST_VISUAL_ID + len(shapes), spellings, subject, family))
    return tuple(shapes)


SHAPES: tuple[FormulaShape, ...] = _build_shapes()
SHAPES_OF_SUBJECT: tuple[tuple[FormulaShape, ...], ...] = tuple(
    tuple(shape for shape in SHAPES if shape.subject == index) for index in range(len(SUBJECTS))
)
COMMON_SHAPES: tuple[FormulaShape, ...] = tuple(shape for shape in SHAPES if shape.subject == -1)
