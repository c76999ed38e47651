"""An assessor's assignments and their items over REST: what a judging script reads.

GET /api/assignments/                                → my active assignments with progress
GET /api/assignments/<assignment>/                   → one of them (the judging page's script
                                                       reads its counts after an item left it)
GET /api/assignments/<assignment>/items/             → its pool items in the judging page's
                                                       order, each with its hits and my grades
GET /api/assignments/<assignment>/items/<item>/      → one of them, or one taken out of the
                                                       scope after I judged it (to revise)

Judgments are submitted and revised at ``…/items/<item>/judgments/`` (judging.py). Scoped like
the pages (another assessor's assignment or another topic's item: 404) and blind like them:
nothing of a run, a rank, a score, another assessor or a machine judge goes out.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from assessment.models import Assignment
from assessment.selectors.item_list import ItemEntry, item_detail, item_entries
from assessment.selectors.judging import ItemPage
from assessment.selectors.progress import (
    ITEM_STATES,
    AssignmentProgress,
    assignment_for,
    assignments_with_progress,
    item_statuses,
)
from collection.core.post_html import plain_text

__all__ = ["AssignmentItemView", "AssignmentItemsView", "AssignmentView", "AssignmentsView"]


class AssignmentOut(serializers.Serializer):
    id = serializers.IntegerField(source="assignment.pk")
    campaign = serializers.CharField(source="assignment.topic.task.campaign.name")
    task = serializers.IntegerField(source="assignment.topic.task_id")
    task_name = serializers.CharField(source="assignment.topic.task.name")
    task_kind = serializers.CharField(source="assignment.topic.task.kind")
    topic = serializers.CharField(source="assignment.topic.number")
    topic_title = serializers.SerializerMethodField(help_text="The title as plain text.")
    purpose = serializers.CharField(source="assignment.purpose")
    training_round = serializers.CharField(
        source="assignment.training_round.name", allow_null=True, default=None
    )
    judged_hits = serializers.IntegerField(source="judged")
    total_hits = serializers.IntegerField(source="total")
    judged_items = serializers.IntegerField(help_text="Items whose every hit is judged.")
    total_items = serializers.IntegerField(source="items")
    flagged = serializers.IntegerField(help_text="Hits you flagged.")
    continue_item = serializers.IntegerField(
        source="continue_item_id", allow_null=True, help_text="The first item still to judge."
    )
    closed = serializers.BooleanField(
        source="is_closed",
        help_text=(
            "The organizer took every item out of this scoped assignment: nothing is left to "
            "judge (your judgments are kept)."
        ),
    )
    items_url = serializers.SerializerMethodField()

    def get_topic_title(self, row: AssignmentProgress) -> str:
        return plain_text(row.assignment.topic.title or "")

    def get_items_url(self, row: AssignmentProgress) -> str:
        return reverse("assessment_api:assignment-items", args=[row.assignment.pk])


class HitOut(serializers.Serializer):
    id = serializers.IntegerField(source="hit_id", help_text="Send it as `hit` to submit.")
    position = serializers.IntegerField(help_text="Its place in the item, from 0.")
    post_id = serializers.IntegerField(allow_null=True, help_text="The post (answer, formula).")
    formula_id = serializers.IntegerField(
        allow_null=True, help_text="The candidate formula's id in the collection (formula tasks)."
    )
    formula = serializers.CharField(
        source="formula_latex", help_text="The candidate formula's LaTeX (formula tasks)."
    )
    docno = serializers.CharField(help_text="The document's number (document tasks).")
    previous = serializers.BooleanField(
        help_text="Judged by a previous assessor: done, not to be judged, its grade not shown."
    )
    grade = serializers.IntegerField(allow_null=True, help_text="Your grade, if any.")
    flag = serializers.CharField(help_text="Your flag, if any.")
    comment = serializers.CharField()
    answers = serializers.DictField(
        child=serializers.BooleanField(),
        help_text="Your answers to the guidelines' extra questions (question code -> yes/no).",
    )
    revision = serializers.IntegerField(help_text="0 when you have not judged it.")
    updated_at = serializers.DateTimeField(allow_null=True)


class ItemOut(serializers.Serializer):
    id = serializers.IntegerField(source="status.item_id")
    position = serializers.IntegerField(source="status.position", help_text="From 1.")
    state = serializers.ChoiceField(source="status.state", choices=ITEM_STATES)
    judged_hits = serializers.IntegerField(source="status.judged")
    total_hits = serializers.IntegerField(source="status.hits")
    answer = serializers.CharField(help_text="A generated answer's text (open QA items).")
    hits = HitOut(many=True)
    judgments_url = serializers.SerializerMethodField(
        help_text="POST the item's judgments here (to submit or revise)."
    )
    page_url = serializers.SerializerMethodField(help_text="The judging page of the item.")

    def get_judgments_url(self, entry: ItemEntry) -> str:
        args = [self.context["assignment_id"], entry.status.item_id]
        return reverse("assessment_api:item-judgments", args=args)

    def get_page_url(self, entry: ItemEntry) -> str:
        return reverse(
            "assessment:judge", args=[self.context["assignment_id"], entry.status.item_id]
        )


class TopicShownOut(serializers.Serializer):
    number = serializers.CharField()
    title_html = serializers.CharField(help_text="Sanitized HTML, as the page shows it.")
    question_html = serializers.CharField(help_text="Sanitized HTML (empty for documents).")
    query_formula = serializers.CharField(help_text="The query formula's LaTeX (formula tasks).")
    description = serializers.CharField(help_text="Document tasks: the topic's description.")
    narrative = serializers.CharField(help_text="Document tasks: the topic's narrative.")


class HitContentOut(serializers.Serializer):
    """A hit's post or document as the judging page shows it (sanitized HTML)."""

    hit = serializers.IntegerField(source="hit_id")
    thread_title_html = serializers.CharField(help_text="The thread's title, for a question.")
    body_html = serializers.CharField(help_text="The post's body.")
    comment_html = serializers.CharField(help_text="The comment holding the formula, if any.")
    formula_in = serializers.CharField(help_text="title | question | answer | comment")
    document_title = serializers.CharField(source="document.title", default="")
    document_html = serializers.CharField(source="document.body_html", default="")
    document_note = serializers.CharField(
        source="document.note", default="", help_text="Says so when a long body is cut."
    )


class ItemDetailOut(ItemOut):
    position = serializers.IntegerField(
        source="status.position",
        allow_null=True,
        help_text="From 1; null for an item taken out of the scope (see taken_out).",
    )
    taken_out = serializers.BooleanField(
        help_text=(
            "The organizer took this item out of your scoped assignment after you judged it: "
            "your judgments of it (revision above 0) can still be corrected, no other hit of it "
            "judged; it is not counted in your progress."
        )
    )
    topic = TopicShownOut()
    content = HitContentOut(
        many=True, help_text="Each hit to judge as the page shows it (not a previous one's)."
    )


def _topic_shown(page: ItemPage) -> dict[str, Any]:
    topic = page.assignment.topic
    return {
        "number": topic.number,
        "title_html": page.topic_title_html,
        "question_html": page.topic_question_html,
        "query_formula": page.query_latex,
        "description": topic.description if page.is_document else "",
        "narrative": topic.narrative if page.is_document else "",
    }


def _own_assignment(request: Request, assignment_id: int) -> Assignment:
    assignment = assignment_for(assessor=request.user, assignment_id=assignment_id)  # type: ignore[arg-type]
    if assignment is None:
        raise Http404("No such assignment.")
    return assignment


class AssignmentsView(GenericAPIView):
    """Your active assignments, as the My assignments page lists them."""

    serializer_class = AssignmentOut

    @extend_schema(responses=AssignmentOut(many=True))
    def get(self, request: Request) -> Response:
        rows = assignments_with_progress(request.user)  # type: ignore[arg-type]
        page = self.paginate_queryset(rows)  # type: ignore[arg-type]
        return self.get_paginated_response(AssignmentOut(page, many=True).data)


class AssignmentView(GenericAPIView):
    """One of your active assignments, as the list gives it (404 when it is not yours or is
    revoked)."""

    serializer_class = AssignmentOut
    pagination_class = None

    @extend_schema(responses=AssignmentOut)
    def get(self, request: Request, assignment_id: int) -> Response:
        rows = assignments_with_progress(request.user, assignment_id)  # type: ignore[arg-type]
        if not rows:
            raise Http404("No such assignment.")
        return Response(AssignmentOut(rows[0]).data)


class AssignmentItemsView(GenericAPIView):
    """The assignment's pool items in the judging page's order, each with its hits and your
    judgments of them."""

    serializer_class = ItemOut

    @extend_schema(responses=ItemOut(many=True))
    def get(self, request: Request, assignment_id: int) -> Response:
        assignment = _own_assignment(request, assignment_id)
        statuses = item_statuses(assignment, detail=True)
        page = self.paginate_queryset(statuses)  # type: ignore[arg-type]
        context: dict[str, Any] = {"assignment_id": assignment.pk}
        entries = item_entries(assignment, page or [])
        return self.get_paginated_response(ItemOut(entries, many=True, context=context).data)


class AssignmentItemView(GenericAPIView):
    """One pool item of the assignment with its hits, your judgments of them, and what the
    judging page shows: the topic, and each hit's post or document (sanitized HTML)."""

    serializer_class = ItemDetailOut
    pagination_class = None

    @extend_schema(responses=ItemDetailOut)
    def get(self, request: Request, assignment_id: int, item_id: int) -> Response:
        assignment = _own_assignment(request, assignment_id)
        detail = item_detail(assignment, item_id)
        if detail is None:
            raise Http404("No such item in this topic.")
        out = dict(ItemOut(detail.entry, context={"assignment_id": assignment.pk}).data)
        out["taken_out"] = detail.page.taken_out
        if detail.page.taken_out:  # no place among the scope's items
            out["position"] = None
        out["topic"] = TopicShownOut(_topic_shown(detail.page)).data
        out["content"] = HitContentOut(detail.page.open_hits, many=True).data
        return Response(out)
