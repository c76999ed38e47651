"""The runs page in real Chromium: upload with a progress bar, problems by line, no-JS fallback."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from collection.models import RetrievalTask
from pooling.models import Run, RunRow
from tests.browser.conftest import PASSWORD
from tests.factories.collection import RetrievalTaskFactory, TopicFactory, UserFactory
from tests.factories.pooling import TeamFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BAD = "A.1\tQ0\t501\t1\t0.9\tweb\nA.1\tQ0\t501\t2\t0.5\tweb\nA.2\tQ0\t7\tfirst\t0.5\tweb\n"


def participant() -> RetrievalTask:
    task = RetrievalTaskFactory.create(kind="answer", campaign__name="ARQMath-3")
    for n in range(1, 11):
        TopicFactory.create(task=task, number=f"A.{n}")
    team = TeamFactory.create(name="TeamA")
    team.members.add(UserFactory.create(username="alice"))
    return task


def fill_form(page, path: Path, tag: str = "web") -> None:  # type: ignore[no-untyped-def]
    page.fill("input[name=tag]", tag)
    page.select_option("select[name=role]", "primary")
    page.set_input_files("input[name=file]", str(path))


def test_progress_bar_fills_and_report_page_opens_when_a_valid_run_is_uploaded(
    page, login, screenshot, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    participant()
    good = tmp_path / "TeamA-task1-web-auto-both-P.tsv"
    good.write_text(
        "".join(
            f"A.{t}\tQ0\t{doc}\t{rank}\t{1000 - rank}.5\tweb\n"
            for t in range(1, 11)
            for rank, doc in enumerate(range(10_000 * t, 10_000 * t + 1000), 1)
        )
    )
    login("alice")
    page.goto("/runs/")
    screenshot("runs-empty")
    # Record every value the progress bar takes: on localhost the upload is too fast to watch.
    page.evaluate(
        """() => {
        const seen = [];
        const bar = document.querySelector('.progress-bar');
        new MutationObserver(() => {
          seen.push(+bar.getAttribute('aria-valuenow'));
          sessionStorage.setItem('progressSeen', JSON.stringify(seen));  // survives the redirect
        }).observe(bar, {attributes: true, attributeFilter: ['aria-valuenow']});
    }"""
    )
    fill_form(page, good)
    page.click("#upload-button")
    page.wait_for_url(re.compile(r"/runs/\d+/$"))
    seen = page.evaluate("() => JSON.parse(sessionStorage.getItem('progressSeen') || '[]')")
    assert seen[0] == 0
    assert max(seen) == 100
    assert "Accepted." in page.inner_text("main")
    screenshot("runs-report")
    run = Run.objects.get()
    assert RunRow.objects.filter(run=run).count() == 10_000
    page.goto("/runs/")
    assert "web" in page.inner_text(".runs-list")


def test_every_problem_is_listed_by_line_without_reload_when_a_bad_run_is_uploaded(
    page, login, screenshot, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    participant()
    bad = tmp_path / "bad.tsv"
    bad.write_text(BAD)
    login("alice")
    page.goto("/runs/")
    fill_form(page, bad)
    page.click("#upload-button")
    page.wait_for_selector("#upload-result table.problems")
    rows = page.locator("#upload-result table.problems tbody tr").all_inner_texts()
    assert [r.split("\t")[0] for r in rows] == ["2", "3"]
    assert "document 501 repeated for topic A.1" in rows[0]
    assert "rank 'first' is not an integer" in rows[1]
    assert page.url.endswith("/runs/")
    screenshot("runs-problems")
    assert not Run.objects.exists()


def test_plain_form_post_shows_problems_when_javascript_is_off(
    browser, live_server, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    participant()
    bad = tmp_path / "bad.tsv"
    bad.write_text(BAD)
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    page = context.new_page()
    page.goto("/accounts/login/")
    page.fill("input[name=username]", "alice")
    page.fill("input[name=password]", PASSWORD)
    page.click("form button[type=submit]")
    page.goto("/runs/")
    fill_form(page, bad)
    page.click("#upload-button")
    page.wait_for_selector("table.problems")
    assert "document 501 repeated for topic A.1" in page.inner_text("table.problems")
    context.close()
    assert not Run.objects.exists()


def test_a_file_past_the_upload_limit_is_refused_naming_it_whether_sent_or_not(
    page, login, tmp_path, settings
) -> None:  # type: ignore[no-untyped-def]
    """The page's script says a file is too large without sending it; sent anyway (the
    script's limit removed), the server refuses it unread with the same words, as JSON."""
    participant()
    settings.RUN_UPLOAD_MAX_BYTES = 1_000
    big = tmp_path / "big.tsv"
    big.write_text("".join(f"A.1\tQ0\t{doc}\t{doc}\t0.5\tweb\n" for doc in range(1, 200)))
    login("alice")
    page.goto("/runs/")
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    fill_form(page, big)
    page.click("#upload-button")
    said = page.locator(".result-bad").inner_text()
    assert f"this upload is {big.stat().st_size:,} bytes" in said
    assert "over the limit of 1,000 bytes a request (RUN_UPLOAD_MAX_BYTES)" in said
    assert posts == []  # not sent
    page.evaluate("() => { delete document.getElementById('upload-form').dataset.maxBytes; }")
    page.click("#upload-button")
    page.wait_for_function("() => /nothing was read or stored/.test(document.body.innerText)")
    assert len(posts) == 1
    assert "over the limit of 1,000 bytes a request" in page.locator(".result-bad").inner_text()
    assert not Run.objects.exists()
