"""bulk_insert writes exactly the rows given, escaping what COPY's text format needs."""

import json

import pytest
from django.db import connection, transaction

from collection.models import Post, Thread
from kernel.bulkload import bulk_insert

pytestmark = pytest.mark.django_db


def test_bulk_insert_round_trips_awkward_text_when_loading_with_copy() -> None:
    assert connection.vendor == "postgresql"
    bulk_insert(Thread, ["id", "title", "tags"], [(1, "t", json.dumps(["a\\b"]))])
    body = "tab\there\nnew line\\backslash\r\u00e9 $x$"
    count = bulk_insert(
        Post,
        ["id", "thread_id", "kind", "body", "score", "created_at", "owner_user_id"],
        [(10, 1, 1, body, -3, None, None), (11, 1, 2, "", 0, "2020-01-02T03:04:05Z", 7)],
        batch_size=1,
    )
    assert count == 2
    assert Post.objects.get(id=10).body == body
    assert Post.objects.get(id=11).owner_user_id == 7
    assert Thread.objects.get(id=1).tags == ["a\\b"]


def test_bulk_insert_leaves_nothing_when_the_transaction_fails() -> None:
    bulk_insert(Thread, ["id", "title", "tags"], [(1, "t", "[]")])
    with pytest.raises(Exception), transaction.atomic():  # noqa: B017
        bulk_insert(
            Post, ["id", "thread_id", "kind", "body"], [(20, 1, 2, "ok"), (20, 1, 2, "dup")]
        )
    assert not Post.objects.filter(id=20).exists()
