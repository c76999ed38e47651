"""The one way to read ids, numbers and choices from URLs, query strings and forms.

Every value a browser or a client sends is hostile until read here. Python's own
readers are too lenient for that: ``str.isdigit()`` is true for ``"²"`` (which ``int()`` then
refuses), ``int()`` reads ``"٣"``, ``" 7 "`` and ``"1_0"``, and neither knows that the database
stores ids as 64-bit integers. The readers below accept ASCII digits only (with a leading ``-``
where the range allows negatives), check the range, and raise :class:`BadParameter` naming the
parameter otherwise.

``BadParameter`` is an ``Http404``: a page given a bad value answers "not found" with the
message, and the REST API turns it into a 400 (``kernel.params.api_exception_handler``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection
from typing import Any, Final, TypeVar

from django.contrib import messages
from django.http import Http404, HttpRequest
from rest_framework import status
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import exception_handler

__all__ = [
    "MAX_ID",
    "BadParameter",
    "BoundedLimitOffsetPagination",
    "IdConverter",
    "api_exception_handler",
    "page_filter",
    "parse_choice",
    "parse_float",
    "parse_id",
    "parse_int",
    "parse_optional_id",
    "parse_text",
]

# Primary keys are PostgreSQL bigints (DEFAULT_AUTO_FIELD = BigAutoField).
MAX_ID: Final = 2**63 - 1
_INTEGER = re.compile(r"-?[0-9]+")
_DECIMAL = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
# Longer than any number we accept (19 digits and a sign): refused before int() reads it.
_MAX_DIGITS = 20
_MAX_DECIMAL_CHARS = 40
_REQUIRED: Any = object()
T = TypeVar("T")


class BadParameter(Http404):
    """A parameter's value is not what the view can read: says which parameter and why."""

    def __init__(self, name: str, problem: str) -> None:
        self.name = name
        self.problem = problem
        super().__init__(f"{name}: {problem}")


def _shown(raw: object) -> str:
    text = repr(raw)
    return text if len(text) <= 40 else text[:37] + "..."


def _missing(raw: object) -> bool:
    return raw is None or raw == ""


def parse_int(
    raw: str | int | None,
    *,
    name: str,
    low: int,
    high: int,
    default: Any = _REQUIRED,
) -> int:
    """An integer in [low, high] written in ASCII digits (``-`` allowed when ``low < 0``).

    A missing or empty value gives ``default`` when one is given, else ``BadParameter``."""
    if _missing(raw):
        if default is _REQUIRED:
            raise BadParameter(name, "a value is required")
        return default  # type: ignore[no-any-return]
    if isinstance(raw, bool):
        raise BadParameter(name, "must be a whole number")
    if isinstance(raw, int):
        number = raw
    else:
        text = str(raw)
        if len(text) > _MAX_DIGITS or not _INTEGER.fullmatch(text):
            raise BadParameter(name, f"must be a whole number in ASCII digits, not {_shown(raw)}")
        number = int(text)
    if not low <= number <= high:
        raise BadParameter(name, f"must be between {low} and {high}, not {_shown(raw)}")
    return number


def parse_id(raw: str | int | None, *, name: str, default: Any = _REQUIRED) -> int:
    """A database id: ASCII digits, 1 to 2**63 - 1."""
    return parse_int(raw, name=name, low=1, high=MAX_ID, default=default)


def parse_optional_id(raw: str | int | None, *, name: str) -> int | None:
    """An id, or ``None`` when the parameter is absent or empty (an optional filter)."""
    return parse_int(raw, name=name, low=1, high=MAX_ID, default=None)  # type: ignore[no-any-return]


def parse_float(
    raw: str | None,
    *,
    name: str,
    low: float,
    high: float,
    default: Any = _REQUIRED,
) -> float:
    """A finite decimal number in [low, high] (ASCII digits, optional point and exponent):
    no ``nan``, ``inf``, ``1_0`` or non-ASCII digits."""
    if _missing(raw):
        if default is _REQUIRED:
            raise BadParameter(name, "a value is required")
        return default  # type: ignore[no-any-return]
    text = str(raw)
    if len(text) > _MAX_DECIMAL_CHARS or not _DECIMAL.fullmatch(text):
        raise BadParameter(name, f"must be a decimal number, not {_shown(raw)}")
    number = float(text)
    if not math.isfinite(number) or not low <= number <= high:
        raise BadParameter(name, f"must be between {low:g} and {high:g}, not {_shown(raw)}")
    return number


def parse_text(raw: str | None, *, name: str, max_length: int, default: Any = "") -> str:
    """Free text from a form field read without a Django form: at most ``max_length``
    characters and no NUL (PostgreSQL refuses it in text: it was a 500)."""
    if raw is None:
        return default  # type: ignore[no-any-return]
    if "\x00" in raw:
        raise BadParameter(name, "must not contain NUL characters")
    if len(raw) > max_length:
        raise BadParameter(name, f"must be at most {max_length} characters, not {len(raw)}")
    return raw


def parse_choice(
    raw: str | None,
    *,
    name: str,
    choices: Collection[T],
    default: Any = _REQUIRED,
) -> T:
    """One of ``choices`` (compared as strings); ``default`` when absent or empty, if given."""
    if _missing(raw):
        if default is _REQUIRED:
            raise BadParameter(name, "a value is required")
        return default  # type: ignore[no-any-return]
    for choice in choices:
        if str(choice) == raw:
            return choice
    allowed = ", ".join(str(c) for c in choices)
    raise BadParameter(name, f"must be one of {allowed}, not {_shown(raw)}")


def page_filter(
    request: HttpRequest, parse: Callable[..., T], raw: str | None, *, default: T, **options: Any
) -> T:
    """A page's display filter (``?show=``, ``?difference=``…) read with ``parse``: a bad value
    is not worth a 404, so the page says what was wrong and shows ``default``."""
    try:
        return parse(raw, default=default, **options)
    except BadParameter as error:
        messages.warning(request, f"Ignored {error}.")
        return default


class IdConverter:
    """``<id:name>`` in URL patterns: a database id (ASCII digits, at most 2**63 - 1).

    Django's ``<int:…>`` matches any run of digits, so ``/runs/99999999999999999999/``
    reached the database and failed there (500); this converter makes such a path not match
    (404). Registered once in config/urls.py."""

    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if not 1 <= number <= MAX_ID:
            raise ValueError(f"{value} is not a database id")  # Django: no match, 404
        return number

    def to_url(self, value: int | str) -> str:
        return str(value)


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, except that a bad parameter is the client's error: 400 naming it."""
    if isinstance(exc, BadParameter):
        body = {"detail": str(exc), "parameter": exc.name}
        return Response(body, status=status.HTTP_400_BAD_REQUEST)
    return exception_handler(exc, context)


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    """``?limit=`` and ``?offset=`` read strictly: a limit of 1 to ``max_limit``, an offset of 0
    to 2**63 - 1, else 400 naming the parameter (DRF's own class read ``limit=10**23`` and the
    database overflowed). The default page is ``PAGE_SIZE``."""

    max_limit = 1000

    def get_limit(self, request: Request) -> int | None:
        raw = request.query_params.get(self.limit_query_param)
        return parse_int(
            raw, name=self.limit_query_param, low=1, high=self.max_limit, default=self.default_limit
        )

    def get_offset(self, request: Request) -> int:
        raw = request.query_params.get(self.offset_query_param)
        return parse_int(raw, name=self.offset_query_param, low=0, high=MAX_ID, default=0)
