"""config.wsgi warms a fresh web process up before its first request, without a database."""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# Loads the app as gunicorn does, then reports what the first request will find ready.
PROBE = """
import json, sys
import config.wsgi
from django.template import engines
loader = engines["django"].engine.template_loaders[0]
views = ("assessment.views.judging", "evaluation.views")
print(json.dumps({
    "views": sorted(m for m in views if m in sys.modules),
    "templates": sorted(name for name in ("assessment/judge.html", "base.html")
                        if any(key.startswith(name) for key in loader.get_template_cache)),
}))
"""


def test_web_process_has_views_and_templates_ready_when_started_without_a_database() -> None:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.dev",
        # Nothing listens on port 9: any query would fail the start.
        "DATABASE_URL": "postgres://nobody@127.0.0.1:9/nothing",
    }
    result = subprocess.run(  # noqa: S603
        [sys.executable, "-c", PROBE],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    ready = json.loads(result.stdout.strip().splitlines()[-1])
    assert ready == {
        "views": ["assessment.views.judging", "evaluation.views"],
        "templates": ["assessment/judge.html", "base.html"],
    }
