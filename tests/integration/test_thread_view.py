"""The thread view /threads/<id>/: whole thread, sanitized, links rewritten, login required."""

import pytest
from django.contrib.staticfiles import finders

from collection.models import Post, Thread
from collection.selectors import thread_of_linked_posts
from tests.factories import CommentFactory, PostFactory, ThreadFactory, UserFactory

pytestmark = pytest.mark.django_db

PAYLOAD = (
    "<p>Look: <script>document.title='owned'</script>"
    '<img src="https://tracker.example/x.png" onerror="alert(1)" alt="plot">'
    '<a href="https://math.stackexchange.com/q/2000">the other question</a>, '
    '<a href="https://math.stackexchange.com/a/2002/77">its answer</a>, '
    '<a href="https://example.org/paper.pdf">a paper</a>, '
    '<a href="https://math.stackexchange.com/q/999999">a post we do not have</a>, '
    '<span class="math-container" id="4711">$x^2+1$</span></p>'
)


@pytest.fixture
def linked_thread() -> int:
    thread = ThreadFactory(id=2000, title="Other thread")
    PostFactory(id=2000, thread=thread, kind=Post.Kind.QUESTION)
    PostFactory(id=2002, thread=thread)
    return 2000


@pytest.fixture
def thread_id(linked_thread: int) -> int:
    thread = ThreadFactory(
        id=1000,
        title=(
            'Is <span class="math-container" id="4700">$x^2+1$</span> '
            'ever <b onclick="x()">zero</b>?'
        ),
        tags=["algebra", "roots"],
    )
    question = PostFactory(id=1000, thread=thread, kind=Post.Kind.QUESTION, body=PAYLOAD, score=7)
    PostFactory(id=1001, thread=thread, body="<p>Low answer</p>", score=-2)
    best = PostFactory(id=1002, thread=thread, body="<p>Best answer</p>", score=12)
    CommentFactory(id=5, post=question, text="<b>not markup</b> $y$", score=3)
    CommentFactory(id=6, post=best, text="Thanks!")
    return 1000


@pytest.fixture
def assessor_client(client):
    client.force_login(UserFactory(username="alice"))
    return client


def test_thread_page_redirects_to_login_when_anonymous(client, thread_id: int) -> None:
    response = client.get(f"/threads/{thread_id}/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_thread_page_is_404_when_the_thread_is_unknown(assessor_client) -> None:
    assert assessor_client.get("/threads/424242/").status_code == 404


def test_thread_page_shows_question_answers_comments_and_tags_when_logged_in(
    assessor_client, thread_id: int, django_assert_max_num_queries
) -> None:
    with django_assert_max_num_queries(8):  # session + user + 4 reads, whatever the thread size
        response = assessor_client.get(f"/threads/{thread_id}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'Is <span class="math-container" id="4700">$x^2+1$</span> ever <b>zero</b>?' in html
    assert "onclick" not in html
    assert "<title>Is $x^2+1$ ever zero? · Thread 1000 · qrelsmith</title>" in html
    for post_id in (1000, 1001, 1002):
        assert f'id="post-{post_id}"' in html
    assert (
        html.index('id="post-1000"') < html.index('id="post-1002"') < html.index('id="post-1001"')
    )
    assert "<li>algebra</li>" in html
    assert "&lt;b&gt;not markup&lt;/b&gt;" in html  # comments are text, escaped
    assert '<span class="math-container" id="4711">$x^2+1$</span>' in html
    assert "vendor/mathjax/tex-chtml.js" in html
    assert "js/mathjax_config.js" in html


def test_thread_page_drops_script_and_onerror_payloads_when_rendering_a_post(
    assessor_client, thread_id: int
) -> None:
    html = assessor_client.get(f"/threads/{thread_id}/").content.decode()
    assert "document.title" not in html
    assert "onerror" not in html
    assert "tracker.example" not in html
    assert "[image: plot]" in html


def test_thread_page_rewrites_collection_links_and_inerts_others_when_rendering(
    assessor_client, thread_id: int
) -> None:
    html = assessor_client.get(f"/threads/{thread_id}/").content.decode()
    new_tab = 'target="_blank" rel="noopener noreferrer"'  # links of posts open in a new tab
    link = '<a class="post-link" href="/threads/2000/#post-{}" ' + new_tab + ">{}</a>"
    assert link.format(2000, "the other question") in html
    assert link.format(2002, "its answer") in html
    assert '<span class="inert-link" title="https://example.org/paper.pdf">a paper</span>' in html
    assert 'href="https://example.org' not in html
    assert (
        '<span class="inert-link" title="https://math.stackexchange.com/q/999999">'
        "a post we do not have</span>" in html
    )


def test_thread_query_count_stays_flat_when_the_thread_grows(
    assessor_client, thread_id: int, django_assert_max_num_queries
) -> None:
    for n in range(30):
        answer = PostFactory(
            id=3000 + n,
            thread_id=thread_id,
            body=f'<a href="https://math.stackexchange.com/q/{2000 if n % 2 else 1000}">x</a>',
        )
        CommentFactory(id=8000 + n, post=answer)
    with django_assert_max_num_queries(8):
        response = assessor_client.get(f"/threads/{thread_id}/")
    assert response.content.decode().count('class="post post-answer"') == 32


def test_linked_posts_resolve_in_one_query_when_many_bodies_are_given(
    linked_thread: int, django_assert_num_queries
) -> None:
    bodies = [f'<a href="/a/2002">a</a><a href="/q/{n}">q</a>' for n in range(50)]
    with django_assert_num_queries(1):
        resolved = thread_of_linked_posts(bodies)
    assert resolved == {2002: 2000}


@pytest.mark.parametrize(
    "static_path",
    [
        "vendor/mathjax/tex-chtml.js",
        "vendor/mathjax/output/chtml/fonts/woff-v2/MathJax_Main-Regular.woff",
        "js/mathjax_config.js",
        "css/app.css",
    ],
)
def test_math_rendering_assets_are_served_locally_when_the_page_asks_for_them(
    static_path: str,
) -> None:
    assert finders.find(static_path), f"{static_path} is not in the static files"


def test_thread_page_highlights_the_candidate_formula_when_one_is_named(
    assessor_client, thread_id: int
) -> None:
    html = assessor_client.get(f"/threads/{thread_id}/?formula=4711").content.decode()
    assert '<span class="math-container hit-formula" id="4711">$x^2+1$</span>' in html
    plain = assessor_client.get(f"/threads/{thread_id}/").content.decode()
    assert "hit-formula" not in plain


def test_accepted_answer_comes_first_and_is_marked_when_the_asker_accepted_one(
    assessor_client, thread_id: int
) -> None:
    Thread.objects.filter(id=thread_id).update(accepted_answer_id=1001)
    html = assessor_client.get(f"/threads/{thread_id}/").content.decode()
    assert html.index('id="post-1001"') < html.index('id="post-1002"')
    assert html.count("✓ Accepted") == 1
    assert html.index("✓ Accepted") > html.index('id="post-1001"')
