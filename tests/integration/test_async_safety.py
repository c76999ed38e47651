"""Django's async-safety check stays on outside the browser tests.

tests/browser/conftest.py allows ORM calls beside Playwright's event loop for that package only;
this module runs after it in a full session and must still see the check."""

from __future__ import annotations

import asyncio
import os

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import SynchronousOnlyOperation

pytestmark = pytest.mark.django_db


def test_orm_call_inside_an_event_loop_is_refused_when_no_browser_test_runs() -> None:
    assert "DJANGO_ALLOW_ASYNC_UNSAFE" not in os.environ

    async def count_users() -> int:
        return User.objects.count()

    with pytest.raises(SynchronousOnlyOperation):
        asyncio.run(count_users())
