"""Template filters for collection and topic text."""

from __future__ import annotations

from django import template

from collection.core.post_html import plain_text

register = template.Library()


@register.filter
def post_text(html: str) -> str:
    """A title as plain text (tags dropped, entities decoded), escaped like any text.

    Put it inside an element with class ``math`` for MathJax to typeset its ``$…$``.
    """
    return plain_text(html or "")
