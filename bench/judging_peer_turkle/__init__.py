"""Turkle, the tool ARQMath judged with, as judging_load.py's peer.

Turkle (PyPI ``turkle``, pinned below) is installed into its own virtual environment,
``var/bench/turkle-venv`` (reused when it already holds that version), since it brings its
own Django. It runs against the same PostgreSQL server, in the database ``bench_turkle``,
behind gunicorn with the same workers, threads and flags (bench/load_common.py), seeded with
the very items qrelsmith's side judged (bench/turkle_site/seed.py): one project per task kind
whose HTML template is a two-pane judging page, one batch per topic.

Each simulated assessor does Turkle's cycle for each item: GET ``accept_next_task`` (302 to
the new assignment), GET the assignment page, GET its iframe (the task's HTML, holding the
posts), think, POST the grades and comments as the form does (302), think. "page" is the
sum of the three GETs (what a browser needs before the posts show), "submit" the POST.
Turkle has no client token, so no submit is sent twice; a failed request is not retried.

Modules: ``provision`` (venv, database, seeding), ``assessors`` (the simulated users),
``measure`` (one run and the side-by-side report). bench/turkle_site is the Turkle site
itself, run inside the venv.
"""

from bench.judging_peer_turkle.measure import report
from bench.judging_peer_turkle.provision import peer_spec

__all__ = ["peer_spec", "report"]
