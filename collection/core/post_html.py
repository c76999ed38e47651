"""Rendering of untrusted Stack Exchange post HTML (pure: nh3 + re, no Django).

Post bodies come straight from a public dump, so they are untrusted: nh3 (ammonia) removes
everything that could run or fetch (scripts, ``on*`` handlers, ``javascript:`` URLs, iframes,
forms, styles, images). A second pass over nh3's output — a serialization of a parsed tree,
so every attribute value is double-quoted with ``"`` escaped and text never holds a raw ``<`` —
rewrites links: a link to a question or answer of the collection goes to that thread in the
app (docs/judging.md), in a new tab like the page's own "Thread" links, so the page
being judged stays where it is; every other link becomes inert text that is never followed.
"""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Mapping
from urllib.parse import urlsplit

import nh3

__all__ = ["clean_post_html", "linked_post_ids", "plain_text", "thread_url"]

ALLOWED_TAGS = frozenset(
    {
        "a", "b", "blockquote", "br", "code", "dd", "del", "div", "dl", "dt", "em",
        "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "kbd", "li", "ol", "p",
        "pre", "s", "span", "strike", "strong", "sub", "sup", "table", "tbody", "td",
        "th", "thead", "tr", "ul",
    }
)  # fmt: skip
# Removed together with their content: their text is code or markup, never prose.
DROPPED_WITH_CONTENT = frozenset(
    {"script", "style", "iframe", "object", "embed", "noscript", "template", "textarea", "select"}
)
ALLOWED_ATTRIBUTES = {
    "a": {"href"},
    # src is not kept: an image would be a fetch from a third-party server.
    "img": {"alt"},
    "span": {"class", "id"},
    "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan"},
    "ol": {"start"},
}
FORMULA_CLASS = "math-container"
HIT_CLASS = "math-container hit-formula"
# Formula instance ids of ARQMath (digits, or "q_6" in topics). Anything else is dropped so a
# post cannot clobber the page's own ids such as "post-12".
FORMULA_ID = re.compile(r"[A-Za-z0-9_]{1,40}")

COLLECTION_HOSTS = frozenset({"math.stackexchange.com", "www.math.stackexchange.com"})
# /q/N[/user], /a/N[/user], /questions/N[/slug[/answer]]; "#N" after a question link is an answer.
SHORT_LINK = re.compile(r"/(?P<kind>[qa])/(?P<id>\d+)(?:/\d+)?/?$")
QUESTION_LINK = re.compile(r"/questions/(?P<id>\d+)(?:/[^/]*(?:/(?P<answer>\d+))?)?/?$")

# Tokens of nh3's serialized output: start or end tags with double-quoted attributes.
TAG = re.compile(r"<(?P<end>/?)(?P<name>[a-zA-Z0-9]+)(?P<attrs>(?:\s+[^\s=>]+=\"[^\"]*\")*)\s*/?>")
ATTRIBUTE = re.compile(r"([^\s=]+)=\"([^\"]*)\"")


# Links of the app inside a post open in a new tab, telling the thread page nothing of this one.
NEW_TAB = ' target="_blank" rel="noopener noreferrer"'


def thread_url(thread_id: int, post_id: int) -> str:
    """The app's address of a post inside its thread page."""
    return f"/threads/{thread_id}/#post-{post_id}"


def _linked_ids(url: str) -> tuple[int, ...]:
    """Post ids a collection link points at, the most specific first (answer, then question)."""
    url = url.strip()
    try:
        parts = urlsplit(url)
    except ValueError:
        return ()
    if parts.scheme and parts.scheme.lower() not in ("http", "https"):
        return ()
    host = (parts.hostname or "").lower()
    if host and host not in COLLECTION_HOSTS:
        return ()
    if not host and not parts.path.startswith("/"):
        return ()  # "q/12" or "foo.html": relative to nothing we know
    short = SHORT_LINK.match(parts.path)
    if short:
        return (int(short["id"]),)
    question = QUESTION_LINK.match(parts.path)
    if not question:
        return ()
    answer = question["answer"] or (parts.fragment if parts.fragment.isdigit() else None)
    ids = (int(answer),) if answer else ()
    return (*ids, int(question["id"]))


def linked_post_ids(html: str) -> set[int]:
    """Ids of the math.stackexchange.com questions and answers a post links to.

    Recognizes ``/q/N``, ``/a/N``, ``/a/N/U`` (U: a user id, ignored) and ``/questions/N/...``
    (with ``/questions/N/slug/A`` or ``#A`` also naming answer A), absolute over http or https or
    relative to the site. Other hosts (meta, other sites) and other paths are not links to posts.
    """
    hrefs: list[str] = []

    def collect(element: str, attribute: str, value: str) -> str | None:
        if element == "a" and attribute == "href":
            hrefs.append(value)
        return None

    nh3.clean(html, tags={"a"}, attributes={"a": {"href"}}, attribute_filter=collect)
    return {post_id for href in hrefs for post_id in _linked_ids(href)}


def _keep_attribute(element: str, attribute: str, value: str) -> str | None:
    if element == "span" and attribute == "class":
        return FORMULA_CLASS if FORMULA_CLASS in value.split() else None
    if element == "span" and attribute == "id":
        return value if FORMULA_ID.fullmatch(value) else None
    if attribute in ("colspan", "rowspan", "start"):
        return value if value.isdigit() and len(value) <= 4 else None
    return value


def _attributes(text: str) -> dict[str, str]:
    return {name: html_lib.unescape(value) for name, value in ATTRIBUTE.findall(text)}


def _escape(value: str) -> str:
    return html_lib.escape(value, quote=True)


class _Rewriter:
    """Rewrites the tags of sanitized HTML: links, images and the highlighted formula."""

    def __init__(self, thread_of: Mapping[int, int], highlight_formula_id: str | None) -> None:
        self.thread_of = thread_of
        self.highlight = highlight_formula_id
        self.open_links: list[str] = []  # the tag each open <a> became, to close it alike

    def __call__(self, match: re.Match[str]) -> str:
        name = match["name"].lower()
        if name == "a":
            if match["end"]:
                return f"</{self.open_links.pop()}>" if self.open_links else ""
            return self._link(_attributes(match["attrs"]).get("href", ""))
        if name == "img" and not match["end"]:
            alt = _attributes(match["attrs"]).get("alt", "").strip()
            label = f"[image: {alt}]" if alt else "[image]"
            return f'<span class="inert-image">{_escape(label)}</span>'
        if name == "span" and not match["end"] and self.highlight is not None:
            attrs = _attributes(match["attrs"])
            if attrs.get("id") == self.highlight and attrs.get("class") == FORMULA_CLASS:
                return f'<span class="{HIT_CLASS}" id="{_escape(self.highlight)}">'
        return match.group(0)

    def _link(self, href: str) -> str:
        for post_id in _linked_ids(href):
            thread_id = self.thread_of.get(post_id)
            if thread_id is not None:
                self.open_links.append("a")
                href = _escape(thread_url(thread_id, post_id))
                return f'<a class="post-link" href="{href}"{NEW_TAB}>'
        self.open_links.append("span")
        title = f' title="{_escape(href)}"' if href else ""
        return f'<span class="inert-link"{title}>'


def clean_post_html(
    html: str, *, thread_of: Mapping[int, int], highlight_formula_id: str | None = None
) -> str:
    """Sanitized post HTML, safe to mark safe in a template.

    ``thread_of`` maps the post ids this post links to (see ``linked_post_ids``) to their thread
    ids; links to those become ``/threads/<thread>/#post-<id>`` opening in a new tab
    (``target="_blank" rel="noopener noreferrer"``), every other link inert text
    (``<span class="inert-link" title=url>``). Images become the text ``[image: alt]``.
    Formula spans (``<span class="math-container" id=...>``) are kept for MathJax; the one whose
    id is ``highlight_formula_id`` gets the class ``hit-formula`` (the judged instance).
    """
    sanitized = nh3.clean(
        html,
        tags=set(ALLOWED_TAGS),
        clean_content_tags=set(DROPPED_WITH_CONTENT),
        attributes=ALLOWED_ATTRIBUTES,
        attribute_filter=_keep_attribute,
        strip_comments=True,
        link_rel=None,
        url_schemes={"http", "https"},
    )
    return TAG.sub(_Rewriter(thread_of, highlight_formula_id), sanitized)


def plain_text(html: str) -> str:
    """The text of untrusted HTML such as a topic title, tags dropped and entities decoded
    (``$a &lt; b$`` becomes ``$a < b$``), for a template to escape as any text and MathJax to
    typeset."""
    text = nh3.clean(html, tags=set(), clean_content_tags=set(DROPPED_WITH_CONTENT))
    return html_lib.unescape(text)
