"""The fake judge server (judges/fake_server.py) as a separate process: started on a free
port, waited for, stopped afterwards. The demo and the tests use it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["fake_judge_server", "fake_judge_stats"]

REPO = Path(__file__).resolve().parent.parent
START_SECONDS = 20.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def fake_judge_stats(base_url: str) -> dict[str, Any]:
    """The server's request counts (``GET /stats``)."""
    stats = base_url.removesuffix("/v1") + "/stats"
    with urllib.request.urlopen(stats, timeout=5) as response:  # noqa: S310 - our own server
        return dict(json.loads(response.read()))


@contextmanager
def fake_judge_server(
    qrels: Path, *options: str, env: dict[str, str] | None = None
) -> Iterator[str]:
    """The base URL (``http://127.0.0.1:PORT/v1``) of a fake judge answering from ``qrels``
    with ``options`` (fake_server's flags), while the block runs."""
    port = _free_port()
    command = [sys.executable, "-m", "judges.fake_server", "--qrels", str(qrels)]
    process = subprocess.Popen(  # noqa: S603 - our own module, arguments from the caller
        [*command, "--port", str(port), *options],
        cwd=REPO,
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                fake_judge_stats(url)
                break
            except OSError as error:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the fake judge server did not start: {error}") from error
                time.sleep(0.05)
        yield url
    finally:
        process.kill()
        process.wait(timeout=30)
