"""Rendering of untrusted documents for the judging pane (pure: nh3 + re, no Django).

A document of a collection is hostile: its title and body come from a file
anyone wrote. An HTML body goes through the post sanitizer's nh3 policy
(collection/core/post_html.py:
the same tags, the same tags dropped with their content) with a stricter attribute policy:
no ``class`` or ``id`` at all, so a document can neither start MathJax (which typesets only
inside ``math``/``post-body``/``math-container`` elements, static/js/mathjax_config.js) nor
clobber the page's own ids and classes. Links become inert text (the URL as a tooltip), never
followed: the assessor judges the document, not where it points. Images stay only when their
source is an inline ``data:image/...;base64`` (the CSP allows ``img-src 'self' data:``); any
other image becomes the text ``[image: alt]``. A plain-text body is escaped and keeps its
paragraphs (a blank line starts a paragraph, a single newline is a line break).

Very long documents (a 10 MB web page) are cut for display at ``DISPLAY_MAX_CHARS`` characters
of the stored body, before sanitizing, and say so ("Showing the first N of M characters").
"""

from __future__ import annotations

import html as html_lib
import re
from dataclasses import dataclass

import nh3

from collection.core.post_html import (
    ALLOWED_TAGS,
    ATTRIBUTE,
    DROPPED_WITH_CONTENT,
    TAG,
    plain_text,
)

__all__ = ["DISPLAY_MAX_CHARS", "DocumentDisplay", "document_display", "text_paragraphs_html"]

DISPLAY_MAX_CHARS = 200_000
# A cut is moved back to the last white space within this many characters, so it does not
# split a word (or, in HTML, a tag's attribute) where a natural break is near.
CUT_SLACK = 200
TITLE_MAX_CHARS = 1_000  # a title is a line, not a second body
# Whole HTML pages bring their head, inline SVG and MathML: markup, never prose to judge.
DOCUMENT_DROPPED = DROPPED_WITH_CONTENT | {"head", "title", "svg", "math", "button"}
DOCUMENT_ATTRIBUTES = {
    "a": {"href"},
    "img": {"alt", "src"},
    "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan"},
    "ol": {"start"},
}
# Inline raster images only: an SVG image is inert in <img>, but nothing needs it.
DATA_IMAGE = re.compile(r"data:image/(?:png|gif|jpeg|webp);base64,[A-Za-z0-9+/=\s]+", re.I)
BLANK_LINE = re.compile(r"\n[ \t]*\n\s*")


@dataclass(frozen=True)
class DocumentDisplay:
    """A document as the judging pane shows it: its title as plain text (for a template to
    escape), its body as sanitized HTML (safe to mark safe), and how much of it is shown."""

    title: str
    body_html: str
    shown_chars: int
    total_chars: int

    @property
    def truncated(self) -> bool:
        return self.shown_chars < self.total_chars

    @property
    def note(self) -> str:
        """ "Showing the first 200,000 of 10,485,760 characters." for a cut document."""
        if not self.truncated:
            return ""
        return f"Showing the first {self.shown_chars:,} of {self.total_chars:,} characters."


def _cut(text: str, limit: int) -> str:
    """The first ``limit`` characters, ending at white space when there is some near."""
    head = text[:limit]
    start = max(0, len(head) - CUT_SLACK)
    space = max(head.rfind(" ", start), head.rfind("\n", start))
    return head[:space] if space > 0 else head


def _escape(value: str) -> str:
    return html_lib.escape(value, quote=True)


def _keep_attribute(element: str, attribute: str, value: str) -> str | None:
    if attribute in ("colspan", "rowspan", "start"):
        return value if value.isdigit() and len(value) <= 4 else None
    if element == "img" and attribute == "src":
        return value if DATA_IMAGE.fullmatch(value.strip()) else None
    return value


def _rewrite_tag(match: re.Match[str]) -> str:
    """Links become inert text; images without an inline source become ``[image: alt]``."""
    name, end = match["name"].lower(), match["end"]
    if name == "a":
        if end:
            return "</span>"
        attrs = {k: html_lib.unescape(v) for k, v in ATTRIBUTE.findall(match["attrs"])}
        href = attrs.get("href", "").strip()
        title = f' title="{_escape(href)}"' if href else ""
        return f'<span class="inert-link"{title}>'
    if name == "img" and not end:
        attrs = {k: html_lib.unescape(v) for k, v in ATTRIBUTE.findall(match["attrs"])}
        alt = attrs.get("alt", "").strip()
        if "src" in attrs:
            return f'<img src="{_escape(attrs["src"])}" alt="{_escape(alt)}">'
        label = f"[image: {alt}]" if alt else "[image]"
        return f'<span class="inert-image">{_escape(label)}</span>'
    return match.group(0)


def clean_document_html(html: str) -> str:
    """Sanitized document HTML (see the module docstring), safe to mark safe."""
    sanitized = nh3.clean(
        html,
        tags=set(ALLOWED_TAGS),
        clean_content_tags=set(DOCUMENT_DROPPED - ALLOWED_TAGS),
        attributes=DOCUMENT_ATTRIBUTES,
        attribute_filter=_keep_attribute,
        strip_comments=True,
        link_rel=None,
        url_schemes={"http", "https", "data"},
    )
    # nh3 serializes every <a> with a matching </a> (an unclosed one is closed by the parser),
    # so each opening span the rewrite makes is closed by one.
    return TAG.sub(_rewrite_tag, sanitized)


def text_paragraphs_html(text: str) -> str:
    """Plain text as escaped HTML paragraphs: a blank line starts a ``<p>``, a single newline
    is a ``<br>`` (what Django's ``linebreaks`` does, without Django)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip("\n")
    paragraphs = [p.strip("\n") for p in BLANK_LINE.split(text) if p.strip()]
    return "\n".join(
        "<p>" + "<br>".join(_escape(line) for line in p.split("\n")) + "</p>" for p in paragraphs
    )


def document_display(
    *,
    title: str,
    body: str,
    body_format: str,
    total_chars: int | None = None,
    max_chars: int = DISPLAY_MAX_CHARS,
) -> DocumentDisplay:
    """What the judging pane shows of a document. ``body_format`` is "html" or "text"
    (Document.BodyFormat); the body is cut at ``max_chars`` characters before rendering.
    ``body`` may already be the first characters of a longer body whose length is
    ``total_chars`` (a reader fetches no more than it shows)."""
    total = len(body) if total_chars is None else max(total_chars, len(body))
    shown = body if total <= max_chars else _cut(body, max_chars)
    title = plain_text(title) if body_format == "html" else title
    title = " ".join(title.split())
    if len(title) > TITLE_MAX_CHARS:
        title = title[:TITLE_MAX_CHARS].rstrip() + "…"
    if body_format == "html":
        return DocumentDisplay(
            title=title,
            body_html=clean_document_html(shown),
            shown_chars=len(shown),
            total_chars=total,
        )
    return DocumentDisplay(
        title=title,
        body_html=text_paragraphs_html(shown),
        shown_chars=len(shown),
        total_chars=total,
    )
