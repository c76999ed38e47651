"""Synthetic news articles with a known relevance to each subject (plain Python, seeded).

``make_document(seed, index, topics=T)`` is document ``index`` of collection ``seed``: the same
arguments give the same article. Every article is mainly about one subject (more often one of
the first ``T``, the subjects the campaign's topics ask about, so each topic has relevant
documents); a long feature on it is highly relevant to that subject (grade 2), a short brief
relevant (1). Some articles also give a whole paragraph to a second subject (relevant to it,
1) or mention a third in passing (its words appear, grade 0: the narratives say so). One
article in ``HTML_EVERY`` has an HTML body, with markup a sanitizer must remove.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta

from demo.synthetic.news_vocabulary import (
    FILLERS,
    FIRST_NAMES,
    LAST_NAMES,
    MENTIONS,
    ORGS,
    PLACES,
    ROLES,
    SUBJECTS,
)

__all__ = ["HTML_EVERY", "NewsDocument", "docno_of", "make_document"]

HTML_EVERY = 23  # one document in 23 is an HTML page
FIRST_DAY = date(2026, 1, 1)
ON_TOPIC_SHARE = 0.6  # share of articles mainly about one of the topics' subjects


@dataclass(frozen=True)
class NewsDocument:
    docno: str
    headline: str
    byline: str
    day: date
    paragraphs: tuple[str, ...]
    is_html: bool
    body: str  # plain text (paragraphs separated by blank lines) or HTML
    grades: dict[int, int] = field(default_factory=dict)  # subject index -> true grade (> 0)


def docno_of(index: int) -> str:
    """The docno of document ``index`` (0-based): QSN-2026-000001, ..."""
    return f"QSN-2026-{index + 1:06d}"


def _person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"


def _fill(template: str, rng: random.Random, **extra: str) -> str:
    return template.format(
        place=rng.choice(PLACES),
        person=_person(rng),
        number=str(rng.randrange(3, 90)),
        org=rng.choice(ORGS),
        **extra,
    )


def _sentence(text: str) -> str:
    # A template may start with a lower-case slot ("the regional council ...").
    return text[:1].upper() + text[1:]


class _Deck:
    """Templates dealt without repeats until all are used, then shuffled again."""

    def __init__(self, templates: tuple[str, ...], rng: random.Random) -> None:
        self.templates, self.rng, self.left = templates, rng, list[str]()

    def deal(self) -> str:
        if not self.left:
            self.left = list(self.templates)
            self.rng.shuffle(self.left)
        return self.left.pop()


def _paragraph(subject: _Deck, on_subject: int, fillers: _Deck, rng: random.Random) -> str:
    sentences = [_fill(subject.deal(), rng) for _ in range(on_subject)]
    sentences.append(_fill(fillers.deal(), rng))
    rng.shuffle(sentences)
    return " ".join(_sentence(s) for s in sentences)


def _subjects(rng: random.Random, topics: int) -> tuple[int, int | None, int | None]:
    """Main subject, maybe a second one (a paragraph) and a passing mention, all different."""
    on_topic = range(min(topics, len(SUBJECTS)))
    main = rng.choice(on_topic) if on_topic and rng.random() < ON_TOPIC_SHARE else None
    if main is None:
        main = rng.randrange(len(SUBJECTS))
    others = [i for i in range(len(SUBJECTS)) if i != main]
    rng.shuffle(others)
    second = others[0] if rng.random() < 0.3 else None
    mention = others[1] if rng.random() < 0.35 else None
    return main, second, mention


def make_document(seed: int, index: int, *, topics: int) -> NewsDocument:
    """Document ``index`` of the collection ``seed`` whose first ``topics`` subjects are
    the campaign's topics (see the module docstring)."""
    rng = random.Random(f"qsn:{seed}:{index}")
    main, second, mention = _subjects(rng, topics)
    subject = SUBJECTS[main]
    feature = rng.random() < 0.5
    grades = {main: 2 if feature else 1}
    deck, fillers = _Deck(subject.sentences, rng), _Deck(FILLERS, rng)
    paragraphs = [
        _paragraph(deck, rng.randint(2, 3) if feature else rng.randint(1, 2), fillers, rng)
        for _ in range(rng.randint(3, 5) if feature else 2)
    ]
    if second is not None:
        grades[second] = 1
        aside_deck = _Deck(SUBJECTS[second].sentences, rng)
        paragraphs.insert(len(paragraphs) // 2 + 1, _paragraph(aside_deck, 3, fillers, rng))
    if mention is not None:
        aside = _fill(rng.choice(MENTIONS), rng, mention=SUBJECTS[mention].mention)
        paragraphs.append(f"{_sentence(aside)} {_fill(fillers.deal(), rng)}")
    place = rng.choice(PLACES)
    paragraphs[0] = f"{place.upper()} - {paragraphs[0]}"
    headline = _sentence(_fill(rng.choice(subject.headlines), rng))
    is_html = index % HTML_EVERY == HTML_EVERY // 4
    body = _html(headline, paragraphs, rng) if is_html else "\n\n".join(paragraphs)
    return NewsDocument(
        docno=docno_of(index),
        headline=headline,
        byline=f"By {_person(rng)}, {rng.choice(ROLES)}",
        day=FIRST_DAY + timedelta(days=rng.randrange(365)),
        paragraphs=tuple(paragraphs),
        is_html=is_html,
        body=body,
        grades=grades,
    )


def _html(headline: str, paragraphs: list[str], rng: random.Random) -> str:
    """An article as a web page: headings, paragraphs, a list, a link, and what a sanitizer
    must strip (a script, an inline style, an event handler)."""
    middle = len(paragraphs) // 2
    # The first sentences of the first paragraphs, without the dateline.
    facts = "".join(f"<li>{p.split(' - ', 1)[-1].split('. ')[0]}.</li>" for p in paragraphs[:2])
    parts = [
        # A web page as web collections hold them; no <html>, <head>, <body> or <title>: TREC
        # SGML readers take TITLE, HEAD and BODY for fields.
        "<!DOCTYPE html>",
        '<script>document.title = "tracked";</script>',
        f'<h1 style="color: red">{headline}</h1>',
        *(f"<p>{p}</p>" for p in paragraphs[:middle]),
        f"<h2>Key facts</h2><ul>{facts}</ul>",
        *(f"<p>{p}</p>" for p in paragraphs[middle:]),
        f'<p><a href="https://news.example.org/{rng.randrange(10**6)}" '
        'onclick="steal()">Read more</a></p>',
    ]
    return "\n".join(parts)
