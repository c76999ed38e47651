"""A small OpenAI-compatible judge server that answers from a qrels file, to test and
demonstrate judge runs against a real HTTP server.

    python -m judges.fake_server --qrels FILE --port P [--confusion X] [--latency-ms N]
        [--error-rate-429 X] [--error-rate-500 Y] [--malformed-rate Z] [--seed S]
        [--require-key-env VAR]

``POST /v1/chat/completions`` (and ``/chat/completions``) reads the topic and the item id from
the prompt (``Topic N:`` and ``<item id="…">``, as the default prompt writes them), looks the
grade up in the qrels (0 when absent) and answers ``Grade: G`` on a final line, where G is the
true grade passed through the confusion: a number p (the grade is replaced by another one,
uniformly, with probability p) or a JSON matrix whose row g gives P(answer | true grade g). The
answer for one (topic, item) is the same on every request (seeded by --seed, the topic and the
item), so tests can compute what the judge said. With ``logprobs`` the answer carries the
grade token's top log-probabilities (the confusion row). ``usage`` counts words.

A nugget prompt (nuggets.core.proposing: documents between ``<document id="…">`` tags) is
answered with one nugget per document, up to six: the document's first sentence, vital for
the first, third and fifth, okay for the others, under a final ``Nuggets:`` line; the same
every time. A malformed nugget answer (per topic, at --malformed-rate) has no such line.

Faults: a share of requests answered 429 (with Retry-After: 0) or 500, drawn per request; a
share of items answered without a grade line (malformed: per item, the same every time).
``GET /stats`` gives counts: requests, by status, distinct items answered, and items answered
more than once (a client that never asks twice keeps it 0). ``POST /stats/reset`` zeroes them.
Standard library only, so it runs anywhere the project's Python does.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from kernel.core.qrels import qrels_read_path

_TOPIC = re.compile(r"Topic\s+([^\s:]+)\s*:")
_ITEM = re.compile(r'<item id="([^"]*)">')
_DOCUMENT = re.compile(r'<document id="([^"]*)">\n(.*?)\n</document>', re.DOTALL)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
MAX_FAKE_NUGGETS = 6
MAX_BODY = 4 * 1024 * 1024


def confusion_matrix(spec: str, top: int) -> list[list[float]]:
    """Rows: true grade 0..top; columns: P(answered grade)."""
    spec = spec.strip()
    if spec.startswith("["):
        rows = json.loads(spec)
        if len(rows) != top + 1 or any(len(r) != top + 1 for r in rows):
            raise ValueError(f"--confusion: a {top + 1}x{top + 1} matrix")
        return [[float(p) / (sum(r) or 1.0) for p in r] for r in rows]
    flip = float(spec or 0)
    if not 0 <= flip <= 1:
        raise ValueError("--confusion: a probability from 0 to 1, or a JSON matrix")
    return [[1 - flip if a == t else flip / top for a in range(top + 1)] for t in range(top + 1)]


class JudgeState:
    def __init__(self, args: argparse.Namespace) -> None:
        entries = qrels_read_path(args.qrels, trec_eval=True)
        self.grades = {(e.topic, e.doc): max(e.grade, 0) for e in entries}
        self.top = args.top if args.top is not None else max([1, *self.grades.values()])
        self.confusion = confusion_matrix(args.confusion, self.top)
        self.args = args
        self.key = os.environ.get(args.require_key_env, "") if args.require_key_env else ""
        self.lock = threading.Lock()
        self.rng = random.Random(args.seed)  # noqa: S311 - simulated faults
        self.requests = 0
        self.status: Counter[int] = Counter()
        self.answered: Counter[tuple[str, str]] = Counter()

    def answer(self, topic: str, item: str) -> tuple[int, list[float], bool]:
        """(answered grade, the confusion row, malformed) for one item: the same every time."""
        rng = random.Random(f"{self.args.seed}|{topic}|{item}")  # noqa: S311 - simulated judge
        true = min(self.grades.get((topic, item), 0), self.top)
        row = self.confusion[true]
        grade = rng.choices(range(self.top + 1), weights=row)[0]
        malformed = rng.random() < self.args.malformed_rate
        return grade, row, malformed

    def fault(self) -> int | None:
        with self.lock:
            draw = self.rng.random()
        if draw < self.args.error_rate_429:
            return 429
        if draw < self.args.error_rate_429 + self.args.error_rate_500:
            return 500
        return None

    def stats(self) -> dict[str, Any]:
        with self.lock:
            return {
                "requests": self.requests,
                "status": {str(k): v for k, v in sorted(self.status.items())},
                "answered_items": len(self.answered),
                "answered": sum(self.answered.values()),
                "answered_more_than_once": sum(1 for n in self.answered.values() if n > 1),
                "cpu_seconds": round(time.process_time(), 3),  # the server's own CPU so far
            }


def _nugget_content(state: JudgeState, topic: str, documents: list[tuple[str, str]]) -> str:
    """Nuggets from the documents' first sentences (or, malformed, a list without its line)."""
    facts: list[str] = []
    for _docno, body in documents[:MAX_FAKE_NUGGETS]:
        first = _SENTENCE_END.split(" ".join(body.split()), maxsplit=1)[0][:300]
        if first and first.casefold() not in {f.casefold() for f in facts}:
            facts.append(first)
    lines = [f"{'vital' if i % 2 == 0 else 'okay'}: {fact}" for i, fact in enumerate(facts)]
    malformed = random.Random(f"{state.args.seed}|{topic}|nuggets").random()  # noqa: S311
    if malformed < state.args.malformed_rate:
        return "The documents say several things:\n" + "\n".join(f"* {f}" for f in facts)
    head = f"Reading {len(documents)} documents for topic {topic}."
    return "\n".join([head, "Nuggets:", *lines])


def _completion(state: JudgeState, request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    messages = request.get("messages")
    if not isinstance(messages, list) or not messages:
        return 400, {"error": {"message": "messages: a non-empty list"}}
    prompt = "\n".join(str(m.get("content", "")) for m in messages if isinstance(m, dict))
    topic = _TOPIC.search(prompt)
    documents = _DOCUMENT.findall(prompt)
    if documents:
        key = (topic.group(1) if topic else "", "nuggets")
        content = _nugget_content(state, key[0], documents)
        return 200, _chat_answer(state, request, prompt, key, content, None)
    item = _ITEM.search(prompt)
    key = (topic.group(1) if topic else "", item.group(1) if item else "")
    grade, row, malformed = state.answer(*key)
    if malformed:
        content = "The item discusses the topic at some length. I would say it is relevant"
    else:
        content = f"Judging topic {key[0]}, item {key[1]}.\nGrade: {grade}"
    logprobs = None
    if request.get("logprobs") and not malformed:
        top = [
            {"token": str(g), "logprob": math.log(p) if p > 0 else -100.0}
            for g, p in sorted(enumerate(row), key=lambda gp: -gp[1])
        ]
        chosen = next(t for t in top if t["token"] == str(grade))
        logprobs = {"content": [{**chosen, "top_logprobs": top}]}
    return 200, _chat_answer(state, request, prompt, key, content, logprobs)


def _chat_answer(
    state: JudgeState,
    request: dict[str, Any],
    prompt: str,
    key: tuple[str, str],
    content: str,
    logprobs: dict[str, Any] | None,
) -> dict[str, Any]:
    choice: dict[str, Any] = {
        "index": 0,
        "message": {"role": "assistant", "content": content},
        "finish_reason": "stop",
    }
    if logprobs is not None:
        choice["logprobs"] = logprobs
    prompt_tokens = len(prompt.split())
    completion_tokens = len(content.split())
    with state.lock:
        state.answered[key] += 1
    return {
        "id": f"fake-{key[0]}-{key[1]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": str(request.get("model", "")),
        "choices": [choice],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def handler_for(state: JudgeState) -> type[BaseHTTPRequestHandler]:  # noqa: C901 - one class
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: a client reuses its connections
        # The headers and the body leave in two writes; with Nagle's algorithm the body then
        # waits for the client's delayed ACK (40 ms on Linux) on every kept-alive request.
        # Real servers (uvicorn under vLLM, llama.cpp, Ollama) set TCP_NODELAY as well.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:
            return  # quiet: a test or the benchmark prints what it needs

        def _send(
            self, status: int, body: dict[str, Any], headers: Sequence[tuple[str, str]] = ()
        ) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path.rstrip("/") == "/stats":
                self._send(200, state.stats())
            elif self.path.rstrip("/") in ("/v1/models", "/models"):
                self._send(200, {"data": [{"id": "fake-judge", "object": "model"}]})
            else:
                self._send(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                self._send(413, {"error": {"message": "too large"}})
                self.close_connection = True
                return
            raw = self.rfile.read(length)
            if self.path.rstrip("/") == "/stats/reset":
                with state.lock:
                    state.requests = 0
                    state.status.clear()
                    state.answered.clear()
                self._send(200, state.stats())
                return
            if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                self._send(404, {"error": {"message": "not found"}})
                return
            status, body, headers = self._answer(raw)
            with state.lock:
                state.requests += 1
                state.status[status] += 1
            self._send(status, body, headers)

        def _answer(self, raw: bytes) -> tuple[int, dict[str, Any], list[tuple[str, str]]]:
            if state.key and self.headers.get("Authorization") != f"Bearer {state.key}":
                return 401, {"error": {"message": "invalid API key"}}, []
            if state.args.latency_ms:
                time.sleep(state.args.latency_ms / 1000)
            fault = state.fault()
            if fault == 429:
                return 429, {"error": {"message": "rate limited"}}, [("Retry-After", "0")]
            if fault == 500:
                return 500, {"error": {"message": "internal error"}}, []
            try:
                request = json.loads(raw)
            except ValueError:
                return 400, {"error": {"message": "not JSON"}}, []
            if not isinstance(request, dict):
                return 400, {"error": {"message": "not a JSON object"}}, []
            status, body = _completion(state, request)
            return status, body, []

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client closing its keep-alive connection is no error worth a traceback."""
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


def serve(args: argparse.Namespace) -> ThreadingHTTPServer:
    server = _Server(("127.0.0.1", args.port), handler_for(JudgeState(args)))
    return server


def arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m judges.fake_server", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--qrels", type=Path, required=True)
    parser.add_argument("--port", type=int, default=0, help="0: any free port (printed)")
    parser.add_argument("--confusion", default="0", help="flip probability or JSON matrix")
    parser.add_argument("--top", type=int, default=None, help="the top grade (default: the qrels')")
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--error-rate-429", type=float, default=0.0)
    parser.add_argument("--error-rate-500", type=float, default=0.0)
    parser.add_argument("--malformed-rate", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--require-key-env", default="", help="answer 401 unless this key is sent")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    server = serve(arguments(argv))
    print(f"fake judge listening on http://127.0.0.1:{server.server_address[1]}/v1", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
