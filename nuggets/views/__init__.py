"""Pages of the nuggets app: the nugget editor, the labelling page, scores and RAG runs."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse

from collection.access import task_for
from judges.models import JudgeEndpoint
from judges.services.endpoints import EndpointError
from kernel.access import is_organizer, organizer_required
from kernel.params import page_filter, parse_choice, parse_int
from kernel.queue import QueueUnavailable
from kernel.request_limits import body_limit
from nuggets.access import own_nugget_assignment, rag_topic_for
from nuggets.core.scores import MEASURES
from nuggets.core.significance import DEFAULT_TRIALS
from nuggets.selectors import (
    assignment_answers,
    pending_proposals,
    proposal_runs,
    task_nugget_scores,
    topic_nuggets,
)
from nuggets.selectors.agreement import nugget_label_agreement
from nuggets.selectors.pages import citation_labels_of, cited_segments, editor_documents
from nuggets.selectors.publication import nugget_publication_state
from nuggets.selectors.significance import nugget_significance
from nuggets.services.proposing import nugget_proposal_request
from nuggets.services.runs import rag_max_answer_words, rag_run_submit
from pooling.access import runs_visible_to, team_for_user
from pooling.services.runs import RunValidationError, SubmissionRefused


def _nuggets_json(topic_id: int, *, with_origin: bool = True) -> list[dict[str, Any]]:
    """The topic's nuggets for a page's script. ``with_origin=False`` for assessors: whether a
    machine proposed a nugget is the organizer's business, and would tell an assessor which
    nuggets a machine judge found (they stay blind to machine judges)."""
    return [
        {"id": n.pk, "text": n.text, "importance": n.importance}
        | ({"origin": n.origin} if with_origin else {})
        for n in topic_nuggets(topic_id)
    ]


@organizer_required
def nugget_editor(request: HttpRequest, topic_id: int) -> HttpResponse:
    topic = rag_topic_for(topic_id)
    if request.method == "POST":
        return _propose(request, topic)
    proposals = [
        {"id": p.pk, "text": p.text, "importance": p.importance, "provenance": p.provenance}
        for p in pending_proposals(topic.pk)
    ]
    context = {
        "topic": topic,
        "documents": editor_documents(topic),
        "nuggets": _nuggets_json(topic.pk),
        "proposals": proposals,
        "api_url": reverse("nuggets_api:topic-nuggets", args=[topic.pk]),
        "endpoints": list(JudgeEndpoint.objects.values_list("name", flat=True)),
        "asks": proposal_runs(topic.pk),
    }
    return render(request, "nuggets/editor.html", context)


def _propose(request: HttpRequest, topic: Any) -> HttpResponse:
    """Ask the chosen endpoint for proposals (a job; run here when there is no broker)."""
    endpoint = JudgeEndpoint.objects.filter(name=request.POST.get("endpoint", "")).first()
    if endpoint is None:
        messages.error(request, "Choose a registered judge endpoint.")
        return HttpResponseRedirect(request.path)
    try:
        ask = nugget_proposal_request(topic=topic, endpoint=endpoint, requested_by=request.user)
    except EndpointError as error:
        messages.error(request, "; ".join(error.problems))
    except QueueUnavailable as error:
        messages.error(request, str(error))
    else:
        if ask.status == ask.Status.DONE:
            if ask.from_cache:
                said = "answered this question before (from the cache): nothing was sent"
            else:
                said = f"proposed {ask.proposed} nugget{'s' if ask.proposed != 1 else ''}"
            messages.success(request, f"{endpoint.name} {said}.")
        elif ask.status == ask.Status.FAILED:
            messages.error(request, ask.error)
        else:
            messages.info(request, f"Asked {endpoint.name}; reload to see its proposals.")
    return HttpResponseRedirect(request.path)


@login_required
def assignment_page(request: HttpRequest, assignment_id: int) -> HttpResponse:
    assignment = own_nugget_assignment(request.user, assignment_id)
    topic = assignment.topic
    answers = assignment_answers(assignment, seed=topic.task.pool_seed)
    nuggets = _nuggets_json(topic.pk, with_origin=False)
    if not answers:
        return render(request, "nuggets/assign.html", {"topic": topic, "answer": None})
    at = parse_int(request.GET.get("at"), name="at", low=1, high=len(answers), default=1)
    answer = answers[at - 1]
    segments = cited_segments(answer.sentences, topic.task.collection_id)
    number = {s.docno: index + 1 for index, s in enumerate(segments)}
    sentences = [
        {
            "text": s["text"],
            "citations": [number[c] for c in s.get("citations", []) if c in number],  # type: ignore[attr-defined]
        }
        for s in answer.sentences
    ]
    given = citation_labels_of(assignment.pk, answer.id)
    citations = [
        {
            "sentence": index,
            "segment": docno,
            "number": number[docno],
            "support": given.get((index, docno), ""),
        }
        for index, s in enumerate(answer.sentences)
        for docno in s.get("citations", [])  # type: ignore[attr-defined]
        if docno in number
    ]
    done = sum(1 for a in answers if len(a.labels) >= len(nuggets) and nuggets)
    base = reverse("nuggets:assign", args=[assignment.pk])
    context = {
        "assignment": assignment,
        "topic": topic,
        "answer": answer,
        "sentences": sentences,
        "segments": segments,
        "count": len(answers),
        "done": done,
        "prev_url": f"{base}?at={at - 1}" if at > 1 else "",
        "next_url": f"{base}?at={at + 1}" if at < len(answers) else "",
        "page_data": {
            "labels_url": reverse("nuggets_api:assignment-labels", args=[assignment.pk]),
            "citations_url": reverse("nuggets_api:assignment-citations", args=[assignment.pk]),
            "citations": citations,
            "answer": answer.id,
            "nuggets": nuggets,
            "labels": {str(k): v for k, v in answer.labels.items()},
        },
    }
    return render(request, "nuggets/assign.html", context)


@organizer_required
def scores_page(request: HttpRequest, task_id: int) -> HttpResponse:
    task = task_for(request.user, task_id)
    scores = task_nugget_scores(task)
    measure = page_filter(
        request,
        parse_choice,
        request.GET.get("measure"),
        name="measure",
        choices=MEASURES,
        default="all",
    )
    significance = nugget_significance(scores, measure=measure)
    context = {
        "task": task,
        "scores": scores,
        "agreement": nugget_label_agreement(task),
        "measure": measure,
        "tests": sorted(significance.tests, key=lambda t: (t.randomization_p_holm, t.a, t.b)),
        "tests_computed_at": significance.computed_at,
        "trials": f"{DEFAULT_TRIALS:,}",
        # The exact test's smallest two-sided p over n topics is 2 / 2^n: said when it binds.
        "smallest_p": 2 / 2 ** len(scores.topics) if len(scores.topics) <= 10 else None,
        "publication": nugget_publication_state(task),
    }
    return render(request, "nuggets/scores.html", context)


@body_limit("RUN_UPLOAD_MAX_BYTES")
@login_required
def runs_page(request: HttpRequest, task_id: int) -> HttpResponse:
    task = task_for(request.user, task_id)
    if request.method == "POST" and request.FILES.get("file"):
        team = team_for_user(request.user, team_name=request.POST.get("team") or None)
        upload = request.FILES["file"]
        assert not isinstance(upload, list)  # noqa: S101 - FILES[...] is one file
        try:
            if team is None:
                raise SubmissionRefused("name your team: you belong to no such team, or to several")
            submission = rag_run_submit(
                task=task,
                team=team,
                stream=upload,  # type: ignore[arg-type]
                file_name=upload.name or "",
                uploaded_by=request.user,  # type: ignore[arg-type]
                tag=request.POST.get("tag") or None,
                ignore_deadline=is_organizer(request.user),
            )
        except RunValidationError as exc:
            context = {"task": task, "report": exc.report, **_runs_context(request, task)}
            return render(request, "nuggets/runs.html", context, status=400)
        except SubmissionRefused as exc:
            messages.error(request, exc.message)
        else:
            messages.success(
                request, f"Run {submission.run.tag}: {submission.answers} answers stored."
            )
        return HttpResponseRedirect(request.path)
    return render(request, "nuggets/runs.html", {"task": task, **_runs_context(request, task)})


def _runs_context(request: HttpRequest, task: Any) -> dict[str, Any]:
    runs = runs_visible_to(request.user).filter(task=task).select_related("team").order_by("tag")
    return {"runs": runs, "max_words": rag_max_answer_words(task)}
