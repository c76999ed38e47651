"""One synthetic thread at a time, rebuilt identically from (seed, index).

Each thread is drawn from its own ``random.Random`` seeded with ``"{seed}:{index}"``, so any
thread can be regenerated without the ones before it: the collection streams in constant
memory, and the run generator can look at a candidate thread again without storing it.

Ids follow a fixed layout so they never collide: thread ``i`` has question id ``8i + 1`` and
answers ``8i + 2 ...`` (at most 6); comment ``c`` of post ``p`` is ``4p + c``; formula ``j`` of
post ``p`` is ``100p + j`` (``j < 80``) and formula ``j`` of its comment ``c`` is
``100p + 80 + 5c + j``.
"""

from __future__ import annotations

import functools
import itertools
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from demo.synthetic.vocabulary import (
    ANSWER_COMMENTS,
    ANSWER_MIDDLES,
    ANSWER_OPENERS,
    ASK,
    COMMON_SHAPES,
    EXTERNAL_LINKS,
    INTRO,
    QUESTION_COMMENTS,
    SHAPES_OF_SUBJECT,
    SUBJECTS,
    FormulaShape,
)

POSTS_PER_THREAD = 8
MAX_ANSWERS = 6
EPOCH = datetime(2010, 7, 20, tzinfo=UTC)
TEN_YEARS_MINUTES = 60 * 24 * 3652


@dataclass(frozen=True, slots=True)
class FormulaRecord:
    formula_id: int
    post_id: int
    thread_id: int
    location: str  # title | question | answer | comment
    comment_id: int | None
    visual_id: int
    latex: str


@dataclass(slots=True)
class PostRecord:
    id: int
    kind: int  # Stack Exchange PostTypeId: 1 question, 2 answer
    thread_id: int
    body: str
    score: int
    created_at: datetime
    owner_user_id: int
    title: str = ""
    tags: tuple[str, ...] = ()
    accepted_answer_id: int | None = None
    quality: float = 0.0  # hidden: how good an answer it is (drives synthetic relevance)
    shapes: frozenset[int] = frozenset()  # visual ids used in the body


@dataclass(frozen=True, slots=True)
class CommentRecord:
    id: int
    post_id: int
    text: str
    score: int
    created_at: datetime
    user_id: int


@dataclass(slots=True)
class ThreadRecord:
    id: int
    subject: int
    key_shapes: tuple[FormulaShape, ...]
    question: PostRecord
    answers: list[PostRecord] = field(default_factory=list)
    comments: list[CommentRecord] = field(default_factory=list)
    formulas: list[FormulaRecord] = field(default_factory=list)

    @property
    def posts(self) -> list[PostRecord]:
        return [self.question, *self.answers]


def question_id(index: int) -> int:
    return POSTS_PER_THREAD * index + 1


def skewed(rng: random.Random, items: tuple[FormulaShape, ...]) -> FormulaShape:
    """A Zipf-like pick: the first shapes of a list are used far more often than the last."""
    return rng.choices(items, cum_weights=_zipf_cumulative(len(items)))[0]


@functools.cache
def _zipf_cumulative(size: int) -> tuple[float, ...]:
    return tuple(itertools.accumulate(1.0 / (rank + 1) for rank in range(size)))


class _PostWriter:
    """Builds one post's HTML, recording each formula instance it places."""

    def __init__(self, rng: random.Random, thread: ThreadRecord, post_id: int, location: str):
        self.rng, self.thread, self.post_id, self.location = rng, thread, post_id, location
        self.next_formula = 0
        self.shapes: set[int] = set()

    def formula(self, shape: FormulaShape, *, display: bool = False, location: str = "") -> str:
        formula_id = 100 * self.post_id + self.next_formula
        self.next_formula += 1
        latex = self.rng.choice(shape.spellings)
        self.thread.formulas.append(
            FormulaRecord(
                formula_id,
                self.post_id,
                self.thread.id,
                location or self.location,
                None,
                shape.visual_id,
                latex,
            )
        )
        self.shapes.add(shape.visual_id)
        tex = f"$${latex}$$" if display else f"${latex}$"
        return f'<span class="math-container" id="{formula_id}">{_escape_text(tex)}</span>'

    def any_shape(self) -> FormulaShape:
        """Mostly the thread's own subject, sometimes a common short formula."""
        if self.rng.random() < 0.35:
            return skewed(self.rng, COMMON_SHAPES)
        if self.rng.random() < 0.5:
            return self.rng.choice(self.thread.key_shapes)
        return skewed(self.rng, SHAPES_OF_SUBJECT[self.thread.subject])


def _escape_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def make_thread(seed: int, index: int) -> ThreadRecord:
    """The thread number ``index`` of the collection generated with ``seed``."""
    rng = random.Random(f"{seed}:{index}")
    subject = rng.randrange(len(SUBJECTS))
    key_shapes = tuple(dict.fromkeys(skewed(rng, SHAPES_OF_SUBJECT[subject]) for _ in range(2)))
    # Ten years of questions, wrapping around for very large collections.
    created = EPOCH + timedelta(minutes=(7 * index) % TEN_YEARS_MINUTES + rng.randrange(7))
    question = PostRecord(
        question_id(index), 1, question_id(index), "", 0, created, rng.randrange(1, 5000)
    )
    thread = ThreadRecord(question.id, subject, key_shapes, question)
    _fill_question(rng, thread)
    for number in range(rng.randint(1, MAX_ANSWERS)):
        thread.answers.append(_make_answer(rng, thread, index, number))
    _choose_accepted(rng, thread)
    for post in thread.posts:
        _add_comments(rng, thread, post)
    return thread


def _fill_question(rng: random.Random, thread: ThreadRecord) -> None:
    subject = SUBJECTS[thread.subject]
    post = thread.question
    writer = _PostWriter(rng, thread, post.id, "question")
    main = thread.key_shapes[0]
    post.title = rng.choice(subject.titles) % {"f": writer.formula(main, location="title")}
    post.tags = (
        subject.tags[0],
        *rng.sample(subject.tags[1:], k=rng.randint(0, min(2, len(subject.tags) - 1))),
    )
    paragraphs = [f"<p>{rng.choice(INTRO)} {writer.formula(main)}.</p>"]
    if len(thread.key_shapes) > 1 or rng.random() < 0.5:
        display = writer.formula(thread.key_shapes[-1], display=True)
        paragraphs.append(f"<p>Here {writer.formula(writer.any_shape())} and {display}</p>")
    paragraphs.append(f"<p>{rng.choice(ASK)}</p>")
    post.body = "".join(paragraphs)
    post.score = max(-3, int(rng.gauss(4, 6)))
    post.shapes = frozenset(writer.shapes)


def _make_answer(rng: random.Random, thread: ThreadRecord, index: int, number: int) -> PostRecord:
    post_id = thread.question.id + 1 + number
    quality = rng.random()
    writer = _PostWriter(rng, thread, post_id, "answer")
    # Better answers stay on the question's own formulas more often.
    lead = thread.key_shapes[0] if rng.random() < 0.3 + 0.6 * quality else writer.any_shape()
    paragraphs = [f"<p>{rng.choice(ANSWER_OPENERS)} {writer.formula(lead)}.</p>"]
    for _ in range(rng.randint(0, 2)):
        shape = writer.any_shape()
        # Display math for the substantial formulas only, as people write it.
        display = rng.random() < 0.3 and shape.subject >= 0
        paragraphs.append(
            f"<p>{rng.choice(ANSWER_MIDDLES)} {writer.formula(shape, display=display)}"
            f" where {writer.formula(writer.any_shape())}.</p>"
        )
    paragraphs.append(_maybe_link(rng, index))
    created = thread.question.created_at + timedelta(minutes=rng.randrange(5, 60 * 24 * 30))
    return PostRecord(
        post_id,
        2,
        thread.id,
        "".join(paragraphs),
        round(quality * 12 + rng.gauss(0, 2)) - 1,
        created,
        rng.randrange(1, 5000),
        quality=quality,
        shapes=frozenset(writer.shapes),
    )


def _maybe_link(rng: random.Random, index: int) -> str:
    """Some answers link to an earlier thread or answer of the site, some to the outside."""
    roll = rng.random()
    if roll < 0.12 and index > 0:
        other = question_id(rng.randrange(index))
        form = rng.choice(
            (f"https://math.stackexchange.com/q/{other}", f"/questions/{other}/a-related-question")
        )
        return f'<p>See also <a href="{form}">this related question</a>.</p>'
    if roll < 0.18 and index > 0:
        answer = question_id(rng.randrange(index)) + 1
        return (
            f'<p>Compare <a href="https://math.stackexchange.com/a/{answer}/17">an answer</a>.</p>'
        )
    if roll < 0.25:
        url, text = rng.choice(EXTERNAL_LINKS)
        return f'<p>More on <a href="{url}">{text}</a>.</p>'
    return ""


def _choose_accepted(rng: random.Random, thread: ThreadRecord) -> None:
    if thread.answers and rng.random() < 0.6:
        best = max(thread.answers, key=lambda post: (post.score, -post.id))
        thread.question.accepted_answer_id = best.id


def _add_comments(rng: random.Random, thread: ThreadRecord, post: PostRecord) -> None:
    for number in range(rng.choice((0, 0, 0, 1, 1, 2, 3))):
        comment_id = 4 * post.id + number
        text = rng.choice(QUESTION_COMMENTS if post.kind == 1 else ANSWER_COMMENTS)
        if "%(f)s" in text:
            shape = rng.choice(thread.key_shapes)
            latex = shape.spellings[0]
            thread.formulas.append(
                FormulaRecord(
                    100 * post.id + 80 + 5 * number,
                    post.id,
                    thread.id,
                    "comment",
                    comment_id,
                    shape.visual_id,
                    latex,
                )
            )
            text = text % {"f": f"${latex}$"}
        created = post.created_at + timedelta(minutes=rng.randrange(1, 600))
        thread.comments.append(
            CommentRecord(comment_id, post.id, text, rng.choice((0, 0, 1, 2)), created, 42 + number)
        )
