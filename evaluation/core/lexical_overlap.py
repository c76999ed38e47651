"""Lexical Overlap (LO) of open-QA answers, as ARQMath-3's overview reports it for Task 3. Pure.

An answer is a bag of tokens. A run's answer to a topic is compared with each reference answer
of the topic, a known relevant answer (grade at least the relevance level: H+M for ARQMath):
token F1 = 2 P R / (P + R), where P is the share of the answer's tokens found in the reference
and R the share of the reference's tokens found in the answer, both counted as bags (a token
appearing twice in one and once in the other overlaps once, as SQuAD's F1 counts). The topic's
LO is the best F1 over its references, the run's LO the mean over the topics it is scored on.

References never include the run's own team's answers: a team's runs often share text, and an
answer would otherwise be rewarded for matching itself (the overview's ablation). ARQMath-3 also
took relevant Task 1 answers (human posts) of at most 1,200 characters as references; a caller
passes them with no team. Which references were used, and the tokenizer, go with the figure
(``LexicalOverlap.description``).

ARQMath tokenized with MathBERTa's tokenizer; no model can be fetched at run time, so the
default here is a word tokenizer (``word``), and the tokenizer is named with every figure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

Tokenizer = Callable[[str], list[str]]

# ARQMath-3 kept Task 1 answers as references only up to this length (in characters).
TASK1_REFERENCE_MAX_CHARS = 1200

# Words (letters and digits, Unicode-aware) and each other non-space character on its own, so
# "$x^2+1$" gives x, ^, 2, +, 1 and LaTeX commands (\frac) keep their name as a word.
_WORD = re.compile(r"\w+|[^\w\s]", re.UNICODE)
_TAG = re.compile(r"<[^>]*>")
_NTH = "\x00"  # joins a token to its occurrence number in a bag; the tokenizers drop it


def _plain(text: str) -> str:
    return _TAG.sub(" ", text).replace(_NTH, " ").lower()


def word_tokens(text: str) -> list[str]:
    """Lower-cased words and single symbols; HTML tags dropped (Task 1 answers are HTML)."""
    return _WORD.findall(_plain(text))


def whitespace_tokens(text: str) -> list[str]:
    """Lower-cased runs of non-space characters (the simplest bag)."""
    return _plain(text).split()


TOKENIZERS: dict[str, Tokenizer] = {"word": word_tokens, "whitespace": whitespace_tokens}
DEFAULT_TOKENIZER = "word"


def tokenizer_named(name: str) -> Tokenizer:
    try:
        return TOKENIZERS[name]
    except KeyError:
        known = ", ".join(sorted(TOKENIZERS))
        raise ValueError(f"unknown tokenizer {name!r} (known: {known})") from None


Bag = frozenset[str]


def bag_of(tokens: Iterable[str]) -> Bag:
    """A bag of tokens as a set: a token seen three times is "t", "t\\x002", "t\\x003". Two bags
    then share min(count, count') of each token, and the common count is the size of a set
    intersection of strings (whose hashes Python keeps), computed in C."""
    seen: dict[str, int] = {}
    found = []
    for token in tokens:
        n = seen[token] = seen.get(token, 0) + 1
        found.append(token if n == 1 else f"{token}{_NTH}{n}")
    return frozenset(found)


def token_f1(answer: Bag, reference: Bag) -> float:
    """F1 of two bags of tokens (0 when they share none or either is empty)."""
    common = len(answer & reference)
    if common == 0:
        return 0.0
    precision = common / len(answer)
    recall = common / len(reference)
    return 2 * precision * recall / (precision + recall)


class Bags:
    """Texts as bags of tokens, each text tokenized once: one ``Bags`` serves every run of an
    evaluation, so the references (shared by all runs) are not tokenized again for each."""

    def __init__(self, tokenizer: str = DEFAULT_TOKENIZER) -> None:
        self.name = tokenizer
        self._tokens = tokenizer_named(tokenizer)
        self._found: dict[str, Bag] = {}

    def __call__(self, text: str) -> Bag:
        found = self._found.get(text)
        if found is None:
            found = self._found[text] = bag_of(self._tokens(text))
        return found


@dataclass(frozen=True, slots=True)
class Reference:
    """A known relevant answer of a topic; ``team`` None for a Task 1 (human) answer."""

    text: str
    team: int | None = None
    task1: bool = False


@dataclass(slots=True)
class LexicalOverlap:
    """A run's LO: per-topic best F1, the mean, and what it was computed with."""

    value: float
    per_topic: dict[str, float]
    topics: int  # the topics the mean is over
    tokenizer: str
    task1_references: bool
    no_reference: list[str] = field(default_factory=list)  # topics scored 0: nothing to match

    @property
    def description(self) -> str:
        refs = "relevant (H+M) Task 3 answers of other teams"
        if self.task1_references:
            limit = TASK1_REFERENCE_MAX_CHARS
            refs += f" and relevant Task 1 answers of at most {limit:,} characters"
        return (
            f"LO: token F1 ({self.tokenizer} tokenizer) against {refs}; "
            f"best per topic, mean over {self.topics} topics."
        )


def usable_task1_answer(text: str) -> bool:
    """ARQMath-3's length limit on Task 1 references (the post's text as stored)."""
    return len(text) <= TASK1_REFERENCE_MAX_CHARS


def lexical_overlap(
    answers: Mapping[str, str],
    references: Mapping[str, Sequence[Reference]],
    *,
    team: int | None,
    topics: Iterable[str] | None = None,
    tokenizer: str = DEFAULT_TOKENIZER,
    bags: Bags | None = None,
) -> LexicalOverlap:
    """LO of one run: ``answers`` topic -> the run's answer text, ``references`` topic -> the
    topic's relevant answers, ``team`` the run's team (its answers are left out). ``topics``:
    what the mean is over (a topic without an answer or without any reference scores 0);
    default the run's answered topics. ``bags``: a tokenizer with its cache, shared by the
    runs of one evaluation (its tokenizer then wins over ``tokenizer``)."""
    bag = bags if bags is not None else Bags(tokenizer)
    tokenizer = bag.name

    over = sorted(set(topics) if topics is not None else set(answers))
    per_topic: dict[str, float] = {}
    no_reference: list[str] = []
    task1 = False
    for topic, text in answers.items():
        usable = [r for r in references.get(topic, ()) if r.team is None or r.team != team]
        task1 = task1 or any(r.task1 for r in usable)
        if not usable:
            no_reference.append(topic)
            per_topic[topic] = 0.0
            continue
        mine = bag(text)
        per_topic[topic] = max(token_f1(mine, bag(r.text)) for r in usable)
    task1 = task1 or any(r.task1 for refs in references.values() for r in refs)
    value = sum(per_topic.get(t, 0.0) for t in over) / len(over) if over else 0.0
    return LexicalOverlap(
        value=value,
        per_topic=per_topic,
        topics=len(over),
        tokenizer=tokenizer,
        task1_references=task1,
        no_reference=sorted(no_reference),
    )
