"""Asking an OpenAI-compatible endpoint one question, with retries.

One urllib3 pool per run (keep-alive connections, as many as the endpoint's concurrency),
shared by the run's threads. 429, 5xx, timeouts and dropped connections are retried with
backoff (judges.core.retry) up to MAX_TRIES; 401/403 stop the run (the key is wrong, and every
question would fail alike); any other 4xx is that question's failure. The API key goes into
the Authorization header and nowhere else: no message, log line or stored row contains it.
Redirects are never followed (a redirect is that question's failure), and every connection
goes only to an address ``judges.addresses`` allows, checked after the name is resolved: a
refused address stops the run like refused credentials.
"""

from __future__ import annotations

import json
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import urllib3
from urllib3.exceptions import HTTPError as Urllib3Error

from judges.addresses import ForbiddenAddress, guarded_pool_manager
from judges.core.retry import MAX_TRIES, backoff_seconds
from judges.limits import EndpointLimiter

__all__ = ["ChatClient", "ChatOutcome", "EndpointRefused"]

MAX_ANSWER_BYTES = 1024 * 1024
_SHOWN = 300


class EndpointRefused(Exception):
    """The endpoint refused our credentials: no question can be asked."""


@dataclass
class ChatOutcome:
    """What came back for one question: the answer's text (or why there is none)."""

    content: str | None = None
    logprobs: Any = None
    error: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    retries: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def _retry_after(response: Any) -> float | None:
    value = response.headers.get("Retry-After")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _error_text(data: bytes) -> str:
    try:
        body = json.loads(data)
        message = body.get("error", {}).get("message") if isinstance(body, dict) else None
    except (ValueError, AttributeError):
        message = None
    return str(message or data[:_SHOWN].decode("utf-8", "replace"))[:_SHOWN]


class ChatClient:
    def __init__(
        self,
        *,
        base_url: str,
        api_key: str,
        timeout: float,
        limiter: EndpointLimiter,
        pool_size: int,
        seed: int = 0,
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.http = guarded_pool_manager(num_pools=2, maxsize=pool_size, block=False, retries=False)
        self.timeout = urllib3.Timeout(connect=min(timeout, 10.0), read=timeout)
        self.headers = {"Content-Type": "application/json"}
        if api_key:
            self.headers["Authorization"] = f"Bearer {api_key}"
        self.limiter = limiter
        self.rng = random.Random(seed)  # noqa: S311 - jitter, not a secret
        self.rng_lock = threading.Lock()

    def _backoff(self, tries: int, retry_after: float | None) -> None:
        with self.rng_lock:
            wait = backoff_seconds(tries, retry_after, self.rng)
        time.sleep(wait)

    def ask(self, body: dict[str, Any]) -> ChatOutcome:
        """Post ``body`` until an answer, a permanent failure, or MAX_TRIES transient ones."""
        payload = json.dumps(body).encode()
        outcome = ChatOutcome()
        last = ""
        for tries in range(1, MAX_TRIES + 1):
            token = self.limiter.acquire()
            started = time.perf_counter()
            try:
                response = self.http.request(
                    "POST",
                    self.url,
                    body=payload,
                    headers=self.headers,
                    timeout=self.timeout,
                    preload_content=False,
                    redirect=False,  # a redirect could lead anywhere: it is an answer, not followed
                )
                data = response.read(MAX_ANSWER_BYTES + 1)
                response.release_conn()
            except ForbiddenAddress as error:
                raise EndpointRefused(f"the endpoint's address is refused: {error}") from error
            except Urllib3Error as error:
                last = f"no answer ({type(error).__name__})"
                response = None
            finally:
                outcome.latency_ms = (time.perf_counter() - started) * 1000
                self.limiter.release(token)
            if response is None or response.status == 429 or response.status >= 500:
                if response is not None:
                    last = f"HTTP {response.status}"
                outcome.retries += 1
                if tries < MAX_TRIES:
                    self._backoff(tries, None if response is None else _retry_after(response))
                continue
            if response.status in (401, 403):
                raise EndpointRefused(
                    f"the endpoint refused the credentials (HTTP {response.status}): "
                    "check the API key variable"
                )
            if response.status != 200:
                outcome.error = f"HTTP {response.status}: {_error_text(data)}"
                return outcome
            return self._read(data, outcome)
        outcome.retries -= 1  # the last try was not retried
        outcome.error = f"gave up after {MAX_TRIES} tries (last: {last})"
        return outcome

    @staticmethod
    def _read(data: bytes, outcome: ChatOutcome) -> ChatOutcome:
        if len(data) > MAX_ANSWER_BYTES:
            outcome.error = f"the answer is larger than {MAX_ANSWER_BYTES:,} bytes"
            return outcome
        try:
            body = json.loads(data)
            choice = body["choices"][0]
            content = choice["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            outcome.error = "not a chat completion: " + data[:_SHOWN].decode("utf-8", "replace")
            return outcome
        usage = body.get("usage") if isinstance(body.get("usage"), dict) else {}
        outcome.content = content if isinstance(content, str) else None
        if outcome.content is None:
            outcome.error = "the answer has no text"
        outcome.logprobs = choice.get("logprobs") if isinstance(choice, dict) else None
        outcome.prompt_tokens = _count(usage.get("prompt_tokens"))
        outcome.completion_tokens = _count(usage.get("completion_tokens"))
        return outcome


def _count(value: Any) -> int:
    return value if isinstance(value, int) and 0 <= value < 2**31 else 0
