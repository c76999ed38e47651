"""``{{ text|markdown }}``: an organizer's Markdown (a campaign description) as safe HTML.

The one renderer is ``assessment.core.guidelines_markdown.markdown_html``: raw HTML in the source
is shown as text, and the result goes through nh3, so marking it safe is sound.
"""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe

from assessment.core.guidelines_markdown import markdown_html

register = template.Library()


@register.filter(is_safe=True)
def markdown(text: str | None) -> SafeString:
    return mark_safe(markdown_html(text or ""))  # noqa: S308 (sanitized by nh3 above)
