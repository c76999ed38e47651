"""Guidelines Markdown to safe HTML, with TeX left for MathJax. Pure (markdown-it-py + nh3).

Organizers write instructions and definitions in Markdown (CommonMark, plus tables and
strikethrough); raw HTML in the source is shown as text, never as markup. Math is written as
on the judging page's posts, ``$…$`` inline and ``$$…$$`` displayed, and ``\\$`` for a dollar
sign. Markdown must not touch it (``$a_1*b*c_2$`` would otherwise lose its ``*`` and ``_`` to
emphasis), so every math span is swapped for an inert placeholder before Markdown runs and put
back, HTML-escaped, afterwards. The result then goes through nh3 like any untrusted HTML;
MathJax (in its safe configuration) typesets the math on the page.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

import nh3
from markdown_it import MarkdownIt

from collection.core.post_html import DROPPED_WITH_CONTENT

__all__ = ["markdown_html", "math_spans_protect"]

ALLOWED_TAGS = frozenset(
    {
        "a", "blockquote", "br", "code", "del", "em", "h3", "h4", "h5", "h6", "hr", "li",
        "ol", "p", "pre", "s", "strong", "table", "tbody", "td", "th", "thead", "tr", "ul",
    }
)  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}

# Placeholders use private-use characters, which are removed from the source first, so an
# author can never write one by hand.
_OPEN, _CLOSE = "\ue000", "\ue001"
_PRIVATE = re.compile("[\ue000-\uf8ff]")
_PLACEHOLDER = re.compile(f"{_OPEN}(\\d+){_CLOSE}")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")

_renderer = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable(
    ["table", "strikethrough"]
)


def _closing(text: str, start: int, delimiter: str) -> int:
    """Index of the delimiter closing a math span opened just before ``start``, or -1.

    A backslash escapes the next character (``\\$`` inside math is a dollar), and a span never
    runs over a blank line: a lone dollar sign ("it costs $5") opens nothing.
    """
    i = start
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text.startswith(delimiter, i):
            return i if i > start else -1
        if text[i] == "\n" and _BLANK_LINE.match(text, i):
            return -1
        i += 1
    return -1


def math_spans_protect(text: str) -> tuple[str, list[str]]:
    """The text with each math span (and each ``\\$``) replaced by a placeholder, and the
    spans in order. ``_restore`` puts them back."""
    text = _PRIVATE.sub("", text)
    spans: list[str] = []
    out: list[str] = []
    i = 0
    while i < len(text):
        if text.startswith("\\$", i):
            end = i + 2
        elif text.startswith("$$", i):
            close = _closing(text, i + 2, "$$")
            end = close + 2 if close >= 0 else -1
        elif text[i] == "$":
            close = _closing(text, i + 1, "$")
            end = close + 1 if close >= 0 else -1
        else:
            end = -1
        if end < 0:
            out.append(text[i])
            i += 1
            continue
        out.append(f"{_OPEN}{len(spans)}{_CLOSE}")
        spans.append(text[i:end])
        i = end
    return "".join(out), spans


def _restore(rendered: str, spans: list[str]) -> str:
    return _PLACEHOLDER.sub(lambda m: html.escape(spans[int(m.group(1))], quote=False), rendered)


@lru_cache(maxsize=1024)
def markdown_html(text: str) -> str:
    """Sanitized HTML of a guidelines text, safe to mark safe in a template.

    Cached by text: a version's texts never change, and every judging page shows them.
    """
    if not text.strip():
        return ""
    protected, spans = math_spans_protect(text)
    rendered = _restore(_renderer.render(protected), spans)
    return nh3.clean(
        rendered,
        tags=set(ALLOWED_TAGS),
        clean_content_tags=set(DROPPED_WITH_CONTENT),
        attributes=ALLOWED_ATTRIBUTES,
        strip_comments=True,
        link_rel="noopener noreferrer",
        set_tag_attribute_values={"a": {"target": "_blank"}},
        url_schemes={"http", "https", "mailto"},
    ).strip()
