"""Disputes and their adjudication, as the organizer's judging page shows them:
``disputes`` (what a dispute is, and reading them), ``agreement`` (how adjudication changed
the agreement) and ``page`` (one dispute at a time, with paging and counts)."""

from assessment.selectors.adjudication.agreement import (
    AgreementChange,
    AssessorAgreement,
    agreement_changes,
)
from assessment.selectors.adjudication.disputes import (
    STATES,
    Decision,
    Dispute,
    DisputeCounts,
    DisputeFilter,
    SharedJudgments,
    Verdict,
    decision_token,
    dispute_counts,
    task_disputes,
)
from assessment.selectors.adjudication.page import (
    AdjudicationPage,
    DisputeContent,
    TopicCount,
    adjudication_page,
    next_undecided_id,
)

__all__ = [
    "STATES",
    "AdjudicationPage",
    "AgreementChange",
    "AssessorAgreement",
    "Decision",
    "Dispute",
    "DisputeContent",
    "DisputeCounts",
    "DisputeFilter",
    "SharedJudgments",
    "TopicCount",
    "Verdict",
    "adjudication_page",
    "agreement_changes",
    "decision_token",
    "dispute_counts",
    "next_undecided_id",
    "task_disputes",
]
