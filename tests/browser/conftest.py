"""Real Chromium through Playwright (sync API) against pytest-django's live_server.

Chromium is /usr/bin/chromium (or $CHROMIUM). Without it the browser tests are skipped with a
reason, except in CI (CI=true), where a missing browser is a failure.
Screenshots go to test-artifacts/ (gitignored) so a person can look at the pages.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PASSWORD = "secret-pass-123"  # tests.factories.UserFactory's password


@pytest.fixture(scope="package")
def _orm_beside_playwright() -> Iterator[None]:
    """Allow ORM calls in the test thread while Playwright runs, and only then.

    Playwright's sync API keeps an asyncio loop running in the test thread from start to
    close, so Django's async-safety check would refuse the tests' own ORM calls (factories,
    assertions, the database flush after each live-server test). The browser lives for this
    package only, and so does the override: tests outside tests/browser/ keep the check."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        yield


def _chromium_path() -> str | None:
    for candidate in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


@pytest.fixture(scope="package")
def browser(_orm_beside_playwright: None) -> Iterator[object]:
    path = _chromium_path()
    if path is None:
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail("CI must have Chromium at /usr/bin/chromium (or $CHROMIUM)")
        pytest.skip("Chromium not found at /usr/bin/chromium: browser tests need a real browser")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=path, headless=True, args=CHROMIUM_ARGS
        )
        yield launched
        launched.close()


@pytest.fixture
def page(browser, live_server) -> Iterator[object]:  # type: ignore[no-untyped-def]
    context = browser.new_context(  # type: ignore[attr-defined]
        base_url=live_server.url, viewport={"width": 1440, "height": 900}
    )
    tab = context.new_page()
    tab.set_default_timeout(15000)
    yield tab
    context.close()


@pytest.fixture
def login(page):  # type: ignore[no-untyped-def]
    """Log a user in through the real login form."""

    def log_in(username: str) -> None:
        page.goto("/accounts/login/")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", PASSWORD)
        page.click("form button[type=submit], form input[type=submit]")
        page.wait_for_load_state("networkidle")

    return log_in


@pytest.fixture
def screenshot(page):  # type: ignore[no-untyped-def]
    """Save a full-page screenshot as test-artifacts/<name>.png."""
    ARTIFACTS.mkdir(exist_ok=True)

    def shoot(name: str) -> Path:
        target = ARTIFACTS / f"{name}.png"
        page.evaluate("() => window.scrollTo(0, 0)")  # sticky bars belong at the top
        page.screenshot(path=str(target), full_page=True)
        return target

    return shoot
