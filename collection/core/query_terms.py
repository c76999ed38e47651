"""The query terms of a topic, which the judging page highlights in documents. Pure.

Terms are the words of the topic's title, lower-cased, in order, each once,
without English stopwords and one-character words. static/js/highlight.js finds them in the
document's text nodes (a term also matches with a plural ending, "tariff" marking "tariffs",
and a plural term without its final s: "tariffs" marks "tariff").
"""

from __future__ import annotations

import re

__all__ = ["MAX_TERMS", "STOPWORDS", "query_terms"]

MAX_TERMS = 30  # a title is a few words; a pathological one must not build a huge pattern
MAX_TERM_CHARS = 40
APOSTROPHES = "'\u2019"  # "women's", also typeset with a right single quotation mark
WORD = re.compile(rf"[^\W_]+(?:[{APOSTROPHES}][^\W_]+)*")

# A short English list (the words of the SMART and Lucene lists that occur in TREC titles).
STOPWORDS = frozenset(
    {
        "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and",
        "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between",
        "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during",
        "each", "either", "else", "etc", "few", "for", "from", "further", "had", "has", "have",
        "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i",
        "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my",
        "myself", "no", "nor", "not", "of", "off", "on", "once", "only", "or", "other", "our",
        "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so", "some", "such",
        "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these",
        "they", "this", "those", "through", "to", "too", "under", "until", "up", "upon", "us",
        "very", "via", "vs", "was", "we", "were", "what", "when", "where", "which", "while",
        "who", "whom", "why", "will", "with", "within", "without", "would", "you", "your",
        "yours", "yourself", "yourselves",
    }
)  # fmt: skip


def query_terms(title: str) -> list[str]:
    """The words of ``title`` worth highlighting: lower-cased, first occurrence order, no
    stopwords, no one-character words, at most ``MAX_TERMS``."""
    terms: list[str] = []
    for match in WORD.finditer(title.lower()):
        word = match.group(0).replace("\u2019", "'")
        if len(word) < 2 or len(word) > MAX_TERM_CHARS or word in STOPWORDS:
            continue
        if word.endswith("'s"):
            word = word[:-2]
        if word not in terms and len(word) >= 2:
            terms.append(word)
        if len(terms) == MAX_TERMS:
            break
    return terms
