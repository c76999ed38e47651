"""Documents for the judging pane (collection/core/document_html.py) and the query terms
highlighted in them (collection/core/query_terms.py): hostile HTML, plain text, long documents.

The sanitized HTML is read back with the standard library's HTML parser, independently of
nh3, and every element and attribute that reaches the page is checked against what the pane
allows.
"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collection.core.document_html import (
    DISPLAY_MAX_CHARS,
    clean_document_html,
    document_display,
    text_paragraphs_html,
)
from collection.core.post_html import ALLOWED_TAGS
from collection.core.query_terms import MAX_TERMS, query_terms

PANE_TAGS = (ALLOWED_TAGS - {"a"}) | {"span", "img"}
PANE_ATTRIBUTES = {
    "span": {"class", "title"},
    "img": {"src", "alt"},
    "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan"},
    "ol": {"start"},
}
PANE_CLASSES = {"inert-link", "inert-image"}


class Elements(HTMLParser):
    """Every start tag with its attributes, and the text, as a browser's parser reads them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parsed(html: str) -> Elements:
    elements = Elements()
    elements.feed(html)
    elements.close()
    return elements


def assert_safe_for_the_pane(html: str) -> None:
    for tag, attrs in parsed(html).tags:
        assert tag in PANE_TAGS, (tag, html)
        for name, value in attrs.items():
            assert name in PANE_ATTRIBUTES.get(tag, set()), (tag, name, html)
            if name == "class":
                assert value in PANE_CLASSES, html
            if name == "src":
                assert (value or "").startswith("data:image/"), html


HOSTILE = {
    "script": ("<p>a<script>alert(1)</script>b</p>", "<p>ab</p>"),
    "onerror": (
        '<img src="data:image/png;base64,iVBORw0KGgo=" onerror="alert(1)">',
        '<img src="data:image/png;base64,iVBORw0KGgo=" alt="">',
    ),
    "javascript link": (
        '<a href="javascript:alert(1)">click</a>',
        '<span class="inert-link">click</span>',
    ),
    "http link": (
        '<a href="https://example.org/a?b=1&amp;c=&quot;2&quot;" target="_top">site</a>',
        '<span class="inert-link" title="https://example.org/a?b=1&amp;c=&quot;2&quot;">site</span>',
    ),
    "style element and attribute": (
        '<style>body{display:none}</style><p style="position:fixed">x</p>',
        "<p>x</p>",
    ),
    "iframe": ('<iframe src="https://evil.example/">inside</iframe>ok', "ok"),
    "form": (
        '<form action="/logout" method="post"><input name="a" value="b">'
        "<button>Go</button><textarea>t</textarea><select><option>o</option></select></form>",
        "",
    ),
    "svg": (
        '<svg onload="alert(1)"><script>alert(2)</script><text>drawn</text></svg>after',
        "after",
    ),
    "svg data image": ('<img src="data:image/svg+xml;base64,PHN2Zz4=" alt="s">', "[image: s]"),
    "remote image": (
        '<img src="https://evil.example/x.png" alt="a chart">',
        '<span class="inert-image">[image: a chart]</span>',
    ),
    "math class": (
        '<span class="math-container" id="judge-form">$\\href{x}{y}$</span>',
        "<span>$\\href{x}{y}$</span>",
    ),
    "meta refresh and base": (
        '<meta http-equiv="refresh" content="0;url=https://evil.example"><base href="//e">t',
        "t",
    ),
    "object and embed": ('<object data="x.swf"><embed src="y.swf"></object>z', "z"),
    "comment": ("<!-- <script>alert(1)</script> -->q", "q"),
}


@pytest.mark.parametrize(("hostile", "expected"), list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_html_is_made_inert_when_document_is_displayed(hostile: str, expected: str) -> None:
    cleaned = clean_document_html(hostile)
    if expected.startswith("<") or not expected:
        assert cleaned == expected
    else:
        assert expected in cleaned
    assert_safe_for_the_pane(cleaned)


def test_whole_html_page_keeps_its_body_text_when_document_is_a_web_page() -> None:
    page = (
        "<!doctype html><html><head><title>Page title</title><meta charset=utf-8>"
        "<link rel=stylesheet href=//evil.example/x.css><script src=//evil.example/x.js>"
        "</script></head><body onload=alert(1)><h1>Headline</h1><p>Text <i>here</i>.</p>"
        "<table><tr><td colspan=2 onclick=x>cell</td></tr></table></body></html>"
    )
    cleaned = clean_document_html(page)
    assert cleaned == (
        '<h1>Headline</h1><p>Text <i>here</i>.</p><table><tbody><tr><td colspan="2">cell</td>'
        "</tr></tbody></table>"
    )


def test_unclosed_link_is_closed_when_document_html_is_broken() -> None:
    cleaned = clean_document_html('<p><a href="https://x.org">one <b>two</p><p>three')
    assert cleaned.count("<span") == cleaned.count("</span>")
    assert_safe_for_the_pane(cleaned)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "<a href='javascript:alert(1)'>",
                "<a href=http://x>",
                "</a>",
                "<img src=x onerror=alert(1)>",
                "<img src='data:image/gif;base64,R0lGOD=='>",
                "<script>",
                "</script>",
                "<svg>",
                "<style>",
                "<p class='math post-body' id=judge-form>",
                "<iframe>",
                "<form>",
                '"',
                "'",
                "<",
                ">",
                "&",
                "$x$",
                "text",
                "<!--",
                "-->",
                "<td rowspan=99999>",
            ]
        )
        | st.text(max_size=8),
        max_size=30,
    )
)
def test_any_markup_leaves_only_pane_elements_when_sanitized(pieces: list[str]) -> None:
    assert_safe_for_the_pane(clean_document_html("".join(pieces)))


def test_plain_text_keeps_paragraphs_and_escapes_markup_when_text_document() -> None:
    text = "First line\r\nsecond line\n\n\n  \nNew <script>alert('x')</script> & more\n"
    assert text_paragraphs_html(text) == (
        "<p>First line<br>second line</p>\n"
        "<p>New &lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; more</p>"
    )
    shown = document_display(title="<b>T</b>", body=text, body_format="text")
    assert shown.title == "<b>T</b>"  # plain text: the template escapes it
    assert not shown.truncated
    assert shown.note == ""
    assert [tag for tag, _ in parsed(shown.body_html).tags] == ["p", "br", "p"]


def test_html_title_becomes_text_when_document_is_html() -> None:
    shown = document_display(
        title="<script>x()</script>Moon &amp;\n <b>stars</b>", body="", body_format="html"
    )
    assert shown.title == "Moon & stars"


@pytest.mark.parametrize("body_format", ["text", "html"])
def test_long_document_is_cut_at_the_bound_with_a_note_when_ten_megabytes(
    body_format: str,
) -> None:
    word = "<p>telescope</p> " if body_format == "html" else "telescope "
    body = word * (10_000_000 // len(word) + 1)
    shown = document_display(title="t", body=body, body_format=body_format)
    assert shown.truncated
    assert shown.total_chars == len(body)
    assert DISPLAY_MAX_CHARS - 200 <= shown.shown_chars <= DISPLAY_MAX_CHARS
    assert shown.note == (f"Showing the first {shown.shown_chars:,} of {len(body):,} characters.")
    assert len(shown.body_html) < 2 * DISPLAY_MAX_CHARS
    # The cut falls on white space, so the last word shown is whole.
    assert body[: shown.shown_chars].rstrip().endswith(word.strip())


def test_body_already_cut_by_the_reader_is_reported_whole_when_total_is_given() -> None:
    head = "x " * 600
    shown = document_display(
        title="t", body=head, body_format="text", total_chars=5_000, max_chars=1_000
    )
    assert (shown.shown_chars, shown.total_chars) == (999, 5_000)
    short = document_display(title="t", body="ab", body_format="text", total_chars=2)
    assert not short.truncated


@pytest.mark.parametrize(
    ("title", "terms"),
    [
        ("Hubble Telescope Achievements", ["hubble", "telescope", "achievements"]),
        ("What is the cost of a $5 ticket to the U.S.?", ["cost", "ticket"]),
        ("Women in Parliaments: women's rights", ["women", "parliaments", "rights"]),
        ("the of and a I", []),
        ("Ölpreis und Börse in 2008", ["ölpreis", "und", "börse", "2008"]),
        ("<script>alert(1)</script>", ["script", "alert"]),
    ],
)
def test_query_terms_skip_stopwords_and_one_letter_words_when_taken_from_title(
    title: str, terms: list[str]
) -> None:
    assert query_terms(title) == terms


def test_query_terms_are_bounded_when_title_is_huge() -> None:
    title = " ".join(f"word{i}" for i in range(1000))
    assert len(query_terms(title)) == MAX_TERMS
