"""An import_collection killed half-way: running it again gives what a clean import gives.

A real ``manage.py import_collection`` subprocess against the test database is killed (SIGKILL,
no clean shutdown) as soon as its posts file is recorded finished, that is while it loads the
comments or the formulas. Each file loads in one transaction and the ledger skips the files that
finished, so the re-run must leave exactly the rows of an uninterrupted import.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db import connection

from bench.collection_dump import DumpFiles, write_dump
from collection.models import CollectionImport, Formula
from tests.integration.collection_contents import contents, import_dump, truncate_collection

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.django_db(transaction=True)


def command(dump: DumpFiles) -> tuple[list[str], dict[str, str]]:
    db = connection.settings_dict  # the test database, which the subprocess must use
    login = db["USER"] + (f":{quote(db['PASSWORD'])}" if db.get("PASSWORD") else "")
    host = db["HOST"] or "127.0.0.1"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": f"postgres://{login}@{host}:{db['PORT'] or 5432}/{db['NAME']}",
        "CONN_MAX_AGE": "0",
    }
    arguments = [sys.executable, "manage.py", "import_collection", "--no-progress"]
    for option, path in (
        ("--posts", dump.posts),
        ("--comments", dump.comments),
        ("--formulas", dump.formulas),
        ("--slt", dump.slt),
    ):
        arguments += [option, str(path)]
    return arguments, env


def wait_until_posts_finished(process: subprocess.Popen[bytes], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    finished = CollectionImport.objects.filter(role="posts", status="finished")
    while time.monotonic() < deadline:
        if finished.exists():
            return
        if process.poll() is not None:
            raise AssertionError(f"the import ended before its posts were recorded: {process}")
        time.sleep(0.005)
    raise AssertionError(f"no posts file finished in {timeout}s")


def test_killed_import_run_again_gives_the_rows_of_a_clean_import(tmp_path: Path) -> None:
    dump = write_dump(tmp_path, posts=4_000, formulas=30_000)
    arguments, env = command(dump)
    process = subprocess.Popen(  # noqa: S603
        arguments, cwd=REPO, env=env, start_new_session=True, stdout=subprocess.DEVNULL
    )
    try:
        wait_until_posts_finished(process)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
    statuses = dict(CollectionImport.objects.values_list("role", "status"))
    assert statuses["posts"] == "finished"
    assert statuses.get("formulas", "not begun") in ("started", "not begun")  # really half-way
    assert not Formula.objects.exists()  # the file being loaded left nothing of itself

    again = subprocess.run(  # noqa: S603
        arguments, cwd=REPO, env=env, capture_output=True, text=True, check=True, timeout=300
    )

    assert "posts Posts.xml: skipped" in again.stdout
    assert "formulas formulas.tsv: formulas 30,000 added" in again.stdout
    # The killed file's "started" row is marked by the next import, which could not know more.
    killed = [status for status in statuses.values() if status == "started"]
    assert CollectionImport.objects.filter(status="interrupted").count() == len(killed)
    interrupted = contents()
    truncate_collection()
    import_dump(dump)
    assert contents() == interrupted
