"""The first load of a judging page at demo size: server time in a fresh web process.

Builds the demo campaign (``manage.py demo``) on a throwaway SQLite file, then starts fresh
Python processes that load the app the way gunicorn and runserver do (``config.wsgi``, which
warms the process up) and, for comparison, without the warm-up (Django's bare WSGI handler),
and time alice's first judging page of each task, then the same pages again. Prints the
start-up time, the first load and the median of later loads in ms, and the queries of a page.
Target: a first load under 300 ms.

    .venv/bin/python bench/judging_first_load.py [--small] [--repeat N]

``--small`` is accepted for ``make bench`` and changes nothing: the demo is small already.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# Runs in a fresh process: argv[1] = "wsgi" (config.wsgi, warmed up) or "bare" (no warm-up).
CHILD = r"""
import json, os, statistics, sys, time
sys.path.insert(0, os.getcwd())
started = time.perf_counter()
if sys.argv[1] == "wsgi":
    import config.wsgi  # noqa: F401
else:
    from django.core.wsgi import get_wsgi_application
    get_wsgi_application()
startup = (time.perf_counter() - started) * 1000
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from assessment.models import Assignment
from assessment.selectors.progress import item_statuses

repeat = int(sys.argv[2])
user = User.objects.get(username="alice")
client = Client(HTTP_HOST="127.0.0.1")
client.force_login(user)
result = {"startup_ms": startup, "pages": []}
for kind in ("answer", "formula"):
    assignment = Assignment.objects.filter(
        assessor=user, topic__task__kind=kind, purpose="official", revoked_at__isnull=True
    ).order_by("pk").first()
    url = f"/assess/{assignment.pk}/{item_statuses(assignment)[0].item_id}/"
    times = []
    for _ in range(repeat):
        with CaptureQueriesContext(connection) as queries:
            began = time.perf_counter()
            response = client.get(url)
            times.append((time.perf_counter() - began) * 1000)
        assert response.status_code == 200, response.status_code
    result["pages"].append(
        {"kind": kind, "first_ms": times[0], "later_ms": statistics.median(times[1:]),
         "queries": len(queries.captured_queries)}
    )
print(json.dumps(result))
"""


def run(args: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(args, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        sys.exit(f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--repeat", type=int, default=6)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.dev",
            "DATABASE_URL": f"sqlite:///{folder}/demo.sqlite3",
            "DEBUG": "false",
        }
        env.pop("REDIS_URL", None)  # the demo as `make demo` runs it: in-process tasks
        manage = [sys.executable, "manage.py"]
        run([*manage, "migrate", "--noinput"], env)
        run([*manage, "demo"], env)
        for mode in ("bare", "wsgi"):
            found = json.loads(run([sys.executable, "-c", CHILD, mode, str(options.repeat)], env))
            label = "with warm-up (config.wsgi)" if mode == "wsgi" else "without warm-up"
            print(f"{label}: process start {found['startup_ms']:.0f} ms")
            for page in found["pages"]:
                print(
                    f"  {page['kind']:8} judging page: first load {page['first_ms']:6.1f} ms, "
                    f"later {page['later_ms']:5.1f} ms, {page['queries']} queries"
                )


if __name__ == "__main__":
    main()
