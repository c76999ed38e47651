"""Sanitizing and link rewriting of untrusted post HTML (collection/core/post_html.py)."""

import re
from html.parser import HTMLParser

import pytest
from hypothesis import given
from hypothesis import strategies as st

from collection.core.post_html import clean_post_html, linked_post_ids

THREADS = {12: 12, 7: 5, 5: 5, 99: 3}


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ('<a href="https://math.stackexchange.com/q/12">q</a>', {12}),
        ('<a href="http://math.stackexchange.com/a/99/4711">a with user</a>', {99}),
        ('<a href="https://math.stackexchange.com/questions/5/some-title">slug</a>', {5}),
        ('<a href="/questions/5/some-title/7#7">answer in question link</a>', {5, 7}),
        ('<a href="/questions/5/t#7">answer as fragment</a>', {5, 7}),
        ('<a href="https://math.stackexchange.com/questions/5">bare</a>', {5}),
        ('<a href="/q/12">relative</a>', {12}),
        ('<a href="//math.stackexchange.com/a/99">protocol relative</a>', {99}),
        ('<a href="https://meta.math.stackexchange.com/q/1">meta</a>', set()),
        ('<a href="https://mathoverflow.net/q/1">other site</a>', set()),
        ('<a href="https://math.stackexchange.com/users/12/x">user</a>', set()),
        ('<a href="https://math.stackexchange.com/questions/tagged/algebra">tag</a>', set()),
        ('<a href="q/12">relative to nothing</a>', set()),
        ('<a href="ftp://math.stackexchange.com/q/12">ftp</a>', set()),
        ("<p>no links at all</p>", set()),
    ],
)
def test_linked_post_ids_finds_collection_posts_when_linked(html: str, expected: set[int]) -> None:
    assert linked_post_ids(html) == expected


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        (
            '<a href="https://math.stackexchange.com/q/12">q</a>',
            '<a class="post-link" href="/threads/12/#post-12" target="_blank"'
            ' rel="noopener noreferrer">q</a>',
        ),
        (
            '<a href="/questions/5/title/7#7">an answer</a>',
            '<a class="post-link" href="/threads/5/#post-7" target="_blank"'
            ' rel="noopener noreferrer">an answer</a>',
        ),
        (
            '<a href="/questions/5/title/8#8">answer not in the collection</a>',
            '<a class="post-link" href="/threads/5/#post-5" target="_blank"'
            ' rel="noopener noreferrer">answer not in the collection</a>',
        ),
        (
            '<a href="https://math.stackexchange.com/q/404">missing</a>',
            '<span class="inert-link" title="https://math.stackexchange.com/q/404">missing</span>',
        ),
        (
            '<a href="https://example.org/a?b=1&amp;c=2">ext</a>',
            '<span class="inert-link" title="https://example.org/a?b=1&amp;c=2">ext</span>',
        ),
        ('<a href="javascript:alert(1)">js</a>', '<span class="inert-link">js</span>'),
        ('<a name="anchor">named</a>', '<span class="inert-link">named</span>'),
    ],
)
def test_links_are_rewritten_or_made_inert_when_cleaned(html: str, expected: str) -> None:
    assert clean_post_html(html, thread_of=THREADS) == expected


@pytest.mark.parametrize(
    ("payload", "forbidden"),
    [
        ("<p>hi</p><script>alert('x')</script>", "<script"),
        ("<p>hi</p><script>alert('x')</script>", "alert"),
        ('<img src="x" onerror="alert(1)">', "onerror"),
        ('<img src="https://tracker.example/p.png" alt="plot">', "tracker.example"),
        ('<p onclick="steal()">click</p>', "onclick"),
        ('<span class="math-container" id="1" onmouseover="x()">$x$</span>', "onmouseover"),
        ('<iframe src="https://evil.example"></iframe>', "iframe"),
        ('<form action="/x"><input name="a"></form>', "<form"),
        ('<form action="/x"><input name="a"></form>', "<input"),
        ("<style>body{display:none}</style><p>x</p>", "display"),
        ('<p style="position:fixed">x</p>', "style"),
        ('<a href="javascript:alert(1)">x</a>', "javascript"),
        ("<svg><script>alert(1)</script></svg>", "alert"),
        ('<span class="math-container" id="post-3">$x$</span>', "post-3"),
    ],
)
def test_dangerous_markup_is_removed_when_cleaned(payload: str, forbidden: str) -> None:
    assert forbidden not in clean_post_html(payload, thread_of={})


def test_image_becomes_inert_text_with_its_alt_when_cleaned() -> None:
    html = '<p><img src="https://i.stack.imgur.com/a.png" alt="a <plot>"></p>'
    assert clean_post_html(html, thread_of={}) == (
        '<p><span class="inert-image">[image: a &lt;plot&gt;]</span></p>'
    )


def test_formula_spans_are_kept_and_the_hit_highlighted_when_an_id_is_given() -> None:
    html = (
        '<p>Let <span class="math-container" id="41">$x^2$</span> and '
        '<span class="math-container" id="42">$y&lt;1$</span>.</p>'
    )
    cleaned = clean_post_html(html, thread_of={}, highlight_formula_id="42")
    assert '<span class="math-container" id="41">$x^2$</span>' in cleaned
    assert '<span class="math-container hit-formula" id="42">$y&lt;1$</span>' in cleaned
    assert cleaned.count("hit-formula") == 1


def test_no_formula_is_highlighted_when_no_id_is_given() -> None:
    html = '<span class="math-container" id="42">$y$</span>'
    assert clean_post_html(html, thread_of={}) == html


def test_unknown_classes_are_dropped_when_cleaned() -> None:
    html = (
        '<span class="math-container hit-formula evil" id="42">$y$</span><span class="x">t</span>'
    )
    assert clean_post_html(html, thread_of={}) == (
        '<span class="math-container" id="42">$y$</span><span>t</span>'
    )


def test_ordinary_markup_survives_when_cleaned() -> None:
    html = (
        "<p><em>a</em> <strong>b</strong> <code>c</code></p><pre><code>d</code></pre>"
        "<blockquote><p>e</p></blockquote><ul><li>f</li></ul><ol><li>g</li></ol>"
        '<table><thead><tr><th>h</th></tr></thead><tbody><tr><td colspan="2">i</td></tr>'
        "</tbody></table><hr><p>j<br>k<sub>1</sub><sup>2</sup></p>"
    )
    assert clean_post_html(html, thread_of={}) == html


markup = st.lists(
    st.sampled_from(
        [
            "<script>",
            "</script>",
            "<a href=",
            '"javascript:alert(1)"',
            "onerror=alert(1)",
            "<img src=x ",
            ">",
            "<",
            '"',
            "'",
            "</a>",
            "<span class='math-container' id='7'>",
            "</span>",
            "https://math.stackexchange.com/q/12",
            "<svg onload=alert(1)>",
            "<iframe>",
            "text",
            "&",
            "<!--",
            "-->",
        ]
    ),
    max_size=30,
).map("".join)


class _Attributes(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.names += [name for name, _ in attrs]


def attribute_names(html: str) -> list[str]:
    parser = _Attributes()
    parser.feed(html)
    parser.close()
    return parser.names


def test_an_escaped_handler_inside_a_title_is_text_not_an_attribute() -> None:
    cleaned = clean_post_html('<a href="<svg onload=alert(1)>"<script>', thread_of=THREADS)
    assert "<svg" not in cleaned
    assert attribute_names(cleaned) == ["class", "title"]


@given(markup)
def test_no_script_handler_or_javascript_url_survives_when_input_is_arbitrary(html: str) -> None:
    cleaned = clean_post_html(html, thread_of=THREADS, highlight_formula_id="7")
    lowered = cleaned.lower()
    assert "<script" not in lowered
    assert "<iframe" not in lowered
    assert "<svg" not in lowered
    assert "<img" not in lowered
    # Attributes as a browser reads them: an escaped "onload=" inside a title is only text.
    assert not [name for name in attribute_names(cleaned) if name.startswith("on")]
    assert 'href="javascript' not in lowered
    assert all(href.startswith("/threads/") for href in re.findall(r'href="([^"]*)"', cleaned))
