"""Template tags of the judging page.

The grade control is rendered here rather than with a template loop: it repeats six labels for
each of up to N hits, and the loop's variable lookups made formula pages several times slower
to render than answer pages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from assessment.selectors.progress import Progress

register = template.Library()
CHECKED = mark_safe(" checked")


@register.simple_tag
def grade_control(
    hit_id: str, current: str, choices: Sequence[tuple[str, str, str, str]]
) -> SafeString:
    """The radio buttons of one hit: High … Not relevant, System failure, Do not know."""
    return format_html_join(
        "\n",
        '<label class="choice choice-{}"><input type="radio" name="choice-{}" value="{}"{}>'
        "<span>{} <kbd>{}</kbd></span></label>",
        (
            (css, hit_id, value, CHECKED if value == current else "", label, key)
            for value, label, key, css in choices
        ),
    )


def answers_signature(answers: Mapping[str, bool], codes: Sequence[str]) -> str:
    """The answers to the questions ``codes`` as "mg:1 ui:0" (unanswered: no), which
    static/js/judge_hits.js compares with what the page shows to tell unsaved changes."""
    return " ".join(f"{code}:{1 if answers.get(code) else 0}" for code in codes)


@register.simple_tag
def question_control(
    hit_id: str, answers: Mapping[str, bool], questions: Sequence[Any]
) -> SafeString:
    """The extra questions of one hit as checkboxes (ticked: yes); the hidden field tells the
    no-JavaScript form that they were asked, so an unticked box is stored as no."""
    if not questions:
        return mark_safe("")
    codes = [q.code for q in questions]
    boxes = format_html_join(
        "\n",
        '<label class="question"><input type="checkbox" name="answer-{}-{}" value="yes" '
        'data-question="{}"{}><span>{} <kbd>{}</kbd></span></label>',
        (
            (hit_id, q.code, q.code, CHECKED if answers.get(q.code) else "", q.label, q.key)
            for q in questions
        ),
    )
    return format_html(
        '<fieldset class="questions" data-answers="{}"><legend class="visually-hidden">'
        'Also asked</legend><input type="hidden" name="asked-{}" value="{}">{}</fieldset>',
        answers_signature(answers, codes),
        hit_id,
        ",".join(codes),
        boxes,
    )


@register.filter
def grade_abbr(value: int | None, guidelines: Any) -> str:
    """One character for a grade of the task's scale (H M L N by default); "" for none."""
    return "" if value is None else guidelines.current.scale.abbreviation(value)


@register.filter
def grade_tone(value: int | None, guidelines: Any) -> str:
    """The colour family of a grade (high, medium, low, not) under the task's scale."""
    if value is None:
        return ""
    return guidelines.current.scale.tone(value, guidelines.current.relevance_level)


@register.filter
def grade_label(value: int | None, guidelines: Any) -> str:
    """The label of a grade of the task's scale ("High" …)."""
    return "" if value is None else guidelines.current.scale.label(value)


@register.simple_tag
def progress_text(progress: Progress, live: bool = False) -> SafeString:
    """Like "<b>12</b> of 44 formulae · <b>30</b> of 100 posts judged" (``str(progress)`` with
    the judged counts in bold); ``live`` marks the counts for static/js/judge.js to update."""
    judged_items = mark_safe(" data-judged-items") if live else ""
    judged_hits = mark_safe(" data-judged") if live else ""
    hits = format_html(
        "<b{}>{}</b> of {} {}", judged_hits, progress.judged_hits, progress.hits, progress.hits_word
    )
    if not progress.counts_items:
        return format_html("{} judged", hits)
    return format_html(
        "<b{}>{}</b> of {} {} · {} judged",
        judged_items,
        progress.judged_items,
        progress.items,
        progress.items_word,
        hits,
    )
