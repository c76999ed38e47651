"""Small template filters for the results pages (measure dicts keyed by name)."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.filter
def get_measure(values: Any, key: str) -> Any:
    """``row|get_measure:"ndcg_prime"``: a dict lookup by a variable key."""
    if isinstance(values, dict):
        return values.get(key)
    return None


@register.filter
def measure_label(key: str, columns: list[tuple[str, str, str]]) -> str:
    return next((label for k, label, _ in columns if k == key), key)


@register.filter
def sub(value: int, other: int) -> int:
    return int(value) - int(other)
