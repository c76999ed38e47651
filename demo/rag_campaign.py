"""The RAG demo campaign: generated answers of three teams judged by nuggets.

Built after the TREC-style demo, on its news collection (the documents are the segments the
answers cite) and its first topics. Everything goes through an organizer's entry points:
``import_rag_runs`` for runs in both TREC RAG layouts, nuggets written by the organizer and
proposed by a machine (``import_nuggets --proposals``, some accepted, one edited, one
rejected), labels by alice and bob (bob dual-assesses one topic) through the labelling service,
citation support on a few answers, and a machine judge's labels (``import_nugget_assignments``);
then the organizer adjudicates a couple of disputed answers and publishes the scores, so the
adjudication and published-scores pages are filled.
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.core.management import call_command

from assessment.models import Assignment
from collection.models import Campaign, DocumentCollection, RetrievalTask, Topic
from collection.services.tasks import task_get_or_create
from nuggets.core.scores import Support
from nuggets.models import (
    CitationLabel,
    Nugget,
    NuggetAdjudication,
    NuggetLabel,
    NuggetProposal,
    NuggetPublicationEvent,
)
from nuggets.selectors.adjudication import answer_adjudication, answer_disputes
from nuggets.services.adjudication import nugget_adjudication_decide
from nuggets.services.labels import CitationVerdict, citation_labels_submit, nugget_labels_submit
from nuggets.services.nuggets import nugget_add, proposal_decide
from nuggets.services.publication import nugget_scores_publish
from pooling.models import RunRow
from pooling.services.runs import team_ensure

__all__ = ["RAG_CAMPAIGN", "RAG_JUDGE", "build_rag_demo", "rag_demo_reset"]

RAG_CAMPAIGN = "RAG demo"
RAG_JUDGE = "llm-nuggets"
TEAMS = (("Northwind", "northwind-rag"), ("Hollis", "hollis-rag"), ("Kestrel", "kestrel-rag"))
TOPICS = 3
LABELS = (Support.SUPPORT, Support.PARTIAL, Support.NONE)


def _first_sentence(text: str) -> str:
    words = text.replace("\n", " ").split()
    return " ".join(words[:14]).rstrip(".,;") + "."


def _answers(task: RetrievalTask, trec_task: RetrievalTask, folder: Path, seed: int) -> list[Path]:
    """One run file per team: answers citing the team's top TREC documents for each topic."""
    rng = random.Random(f"rag-demo:{seed}")
    bodies = dict(task.collection.documents.values_list("docno", "body"))  # type: ignore[union-attr]
    paths = []
    for index, (team, run_id) in enumerate(TEAMS):
        lines = []
        for topic in task.topics.order_by("id"):
            rows = RunRow.objects.filter(
                run__task=trec_task, run__team__name=team, topic__number=topic.number
            ).order_by("run_id", "rank")
            docnos = list(dict.fromkeys(rows.values_list("docno", flat=True)[:20]))[:3]
            if not docnos or (index == 2 and topic.number == task.topics.last().number):  # type: ignore[union-attr]
                continue  # Kestrel leaves its last topic unanswered: it scores 0 there
            sentences = [
                {"text": _first_sentence(bodies.get(d, d)), "citations": [n]}
                for n, d in enumerate(docnos)
            ]
            sentences.append({"text": f"In short: {topic.title}.", "citations": []})
            if rng.random() < 0.5:
                sentences[0]["citations"] = [0, len(docnos) - 1]
            words = sum(len(str(s["text"]).split()) for s in sentences)
            if index == 1:  # Hollis writes the 2025 layout
                record: dict[str, Any] = {
                    "metadata": {"team_id": team, "run_id": run_id, "narrative_id": topic.number},
                    "references": docnos,
                    "answer": sentences,
                }
            else:
                record = {
                    "run_id": run_id,
                    "topic_id": topic.number,
                    "topic": topic.title,
                    "references": docnos,
                    "response_length": words,
                    "answer": sentences,
                }
            lines.append(json.dumps(record))
        path = folder / f"{run_id}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return paths


def _nuggets(task: RetrievalTask, folder: Path, organizer: User | None, write: Any) -> None:
    proposals = []
    for topic in task.topics.order_by("id"):
        cited = list(topic.rag_answers.values_list("sentences", flat=True))
        facts = list(dict.fromkeys(s["text"] for answer in cited for s in answer if s["citations"]))
        for n, fact in enumerate(facts[:2]):
            nugget_add(
                topic=topic, text=fact, importance="vital" if n == 0 else "okay", user=organizer
            )
        proposals.append(
            {
                "qid": topic.number,
                "query": topic.title,
                "nuggets": [{"text": f, "importance": "okay"} for f in facts[2:5]]
                + [{"text": f"Background on {topic.title}", "importance": "okay"}],
            }
        )
    path = folder / "proposed-nuggets.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in proposals))
    _run(
        write,
        "import_nuggets",
        str(path),
        campaign=RAG_CAMPAIGN,
        proposals=True,
        provenance="llm-nuggets (demo), from the cited segments",
    )
    for topic in task.topics.order_by("id"):
        pending = list(NuggetProposal.objects.filter(topic=topic).order_by("pk"))
        if organizer is None or not pending:
            continue
        *accepted, background = pending
        for proposal in accepted[:-1]:
            proposal_decide(
                topic=topic, proposal_id=proposal.pk, decision="accepted", user=organizer
            )
        if accepted:
            proposal_decide(
                topic=topic,
                proposal_id=accepted[-1].pk,
                decision="edited",
                text=accepted[-1].text.rstrip(".") + ", as the segment says.",
                user=organizer,
            )
        if topic.number != task.topics.last().number:  # type: ignore[union-attr]
            proposal_decide(
                topic=topic, proposal_id=background.pk, decision="rejected", user=organizer
            )  # the last topic's background proposal is left for the editor to decide


def _label(task: RetrievalTask, users: dict[str, User], seed: int) -> int:
    rng = random.Random(f"rag-labels:{seed}")
    topics = list(task.topics.order_by("id"))
    plan = [(topics[0], "alice", "official"), (topics[0], "bob", "dual")]
    plan += [(t, "bob" if n % 2 else "alice", "official") for n, t in enumerate(topics[1:], 1)]
    count = 0
    for topic, name, purpose in plan:
        assessor = users[name]
        assignment, _ = Assignment.objects.get_or_create(
            topic=topic, assessor=assessor, purpose=purpose, revoked_at=None
        )
        nuggets = list(Nugget.objects.filter(topic=topic, is_deleted=False))
        for answer in topic.rag_answers.order_by("pk"):
            labels = {n.pk: str(rng.choice(LABELS)) for n in nuggets}
            count += len(
                nugget_labels_submit(
                    assignment_id=assignment.pk,
                    answer_id=answer.pk,
                    labels=labels,
                    assessor=assessor,
                ).labels
            )
            if purpose == "official":
                verdicts = [
                    CitationVerdict(i, segment, rng.choice(["full", "full", "partial", "none"]))
                    for i, sentence in enumerate(answer.sentences)
                    for segment in sentence["citations"]
                ]
                if verdicts:
                    citation_labels_submit(
                        assignment_id=assignment.pk,
                        answer_id=answer.pk,
                        verdicts=verdicts,
                        assessor=assessor,
                    )
    return count


def _machine_judge(task: RetrievalTask, folder: Path, seed: int, write: Any) -> None:
    rng = random.Random(f"rag-judge:{seed}")
    User.objects.get_or_create(username=RAG_JUDGE, defaults={"is_active": False})
    records = []
    for topic in task.topics.order_by("id"):
        nuggets = list(Nugget.objects.filter(topic=topic, is_deleted=False).order_by("position"))
        for answer in topic.rag_answers.select_related("run").order_by("pk"):
            records.append(
                {
                    "qid": topic.number,
                    "run_id": answer.run.tag,
                    "nuggets": [
                        {
                            "text": n.text,
                            "importance": n.importance,
                            "assignment": str(rng.choice(LABELS)),
                        }
                        for n in nuggets
                    ],
                }
            )
    path = folder / f"{RAG_JUDGE}-assignments.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    _run(write, "import_nugget_assignments", str(path), campaign=RAG_CAMPAIGN, assessor=RAG_JUDGE)


def _adjudicate(task: RetrievalTask, organizer: User | None, limit: int = 2) -> int:
    """The organizer's final label on the first disputed nugget of a few answers (alice and
    bob both label the first topic), so the adjudication page has decided and open disputes."""
    if organizer is None:
        return 0
    made = 0
    for dispute in answer_disputes(task)[:limit]:
        shown = answer_adjudication(task, dispute.answer_id)
        verdict = next(v for v in shown.nuggets if v.disputed) if shown else None
        if verdict is None:
            continue
        nugget_adjudication_decide(
            task=task,
            answer_id=dispute.answer_id,
            finals={verdict.nugget.pk: verdict.opinions[-1].support},  # the dual reading
            decided_by=organizer,
            note="demo: the second reading is the right one",
        )
        made += 1
    return made


def _run(write: Callable[[str], None], command: str, *args: str, **options: Any) -> None:
    out = io.StringIO()
    call_command(command, *args, stdout=out, **options)
    for line in out.getvalue().splitlines():
        if line.strip():
            write(f"  {line.strip()}")


def build_rag_demo(
    *,
    folder: Path,
    seed: int,
    collection: str,
    trec_campaign: str,
    users: dict[str, User],
    write: Callable[[str], None],
) -> None:
    """Build the RAG demo on the TREC demo's collection and topics (files under ``folder``)."""
    folder.mkdir(parents=True, exist_ok=True)
    trec_task = RetrievalTask.objects.get(campaign__name=trec_campaign)
    campaign, _ = Campaign.objects.get_or_create(name=RAG_CAMPAIGN)
    task, _ = task_get_or_create(
        campaign=campaign,
        kind=RetrievalTask.Kind.RAG,
        collection=DocumentCollection.objects.get(name=collection),
    )
    task.title = "Generated answers with citations, judged by nuggets"
    task.save(update_fields=["title"])
    for topic in trec_task.topics.order_by("id")[:TOPICS]:
        Topic.objects.create(
            task=task,
            number=topic.number,
            title=topic.title,
            description=topic.description,
            narrative=topic.narrative,
        )
    paths = _answers(task, trec_task, folder, seed)
    for (team_name, _), path in zip(TEAMS, paths, strict=True):
        team, _ = team_ensure(name=team_name)
        team.campaigns.add(campaign)  # its members are offered this campaign's tasks too
        _run(write, "import_rag_runs", str(path), campaign=RAG_CAMPAIGN, team=team_name)
    _nuggets(task, folder, users.get("organizer"), write)
    write(f"  {_label(task, users, seed)} nugget labels by alice and bob")
    _machine_judge(task, folder, seed, write)
    organizer = users.get("organizer")
    write(f"  {_adjudicate(task, organizer)} disputed answers adjudicated")
    event = nugget_scores_publish(task=task, by=organizer)
    write(f"  published the nugget scores (snapshot {event.snapshot.checksum[:12]})")
    write(f"  scores: /nuggets/tasks/{task.pk}/scores/")
    write(f"  published: /nuggets/tasks/{task.pk}/published/")


def rag_demo_reset() -> None:
    """Delete the RAG demo (labels first: they are protected against cascades) and its
    machine judge's account; call inside the reset's transaction, before the collection goes."""
    in_demo = {"assignment__topic__task__campaign__name": RAG_CAMPAIGN}
    CitationLabel.objects.filter(**in_demo).delete()
    NuggetAdjudication.objects.filter(answer__run__task__campaign__name=RAG_CAMPAIGN).delete()
    NuggetPublicationEvent.objects.filter(task__campaign__name=RAG_CAMPAIGN).delete()
    NuggetLabel.objects.filter(**in_demo).delete()
    Campaign.objects.filter(name=RAG_CAMPAIGN).delete()
    User.objects.filter(username=RAG_JUDGE).delete()
