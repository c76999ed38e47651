"""Live agreement tables, computed on read from the judgments.

One query loads the graded judgments that matter (hits graded by at least two assessors, or a
training round's judgments), the pure core in ``assessment.core.agreement`` does the rest. Flags are
left out (they are not grades). Judgments count for the assessor who made them, whatever
became of their assignment later (moved or revoked).

- ``table``: the table a page shows, and how one is computed from ratings;
- ``task``: a task's official, dual and machine judges' agreement, overall and per topic;
- ``training``: training rounds' agreement with each other and with gold, and the feedback
  an assessor sees after a round.
"""

from assessment.selectors.agreement.table import AgreementTable, GoldAgreement
from assessment.selectors.agreement.task import task_agreement
from assessment.selectors.agreement.training import (
    FeedbackRow,
    training_feedback,
    training_round_agreement,
    training_rounds_agreement,
)

__all__ = [
    "AgreementTable",
    "FeedbackRow",
    "GoldAgreement",
    "task_agreement",
    "training_feedback",
    "training_round_agreement",
    "training_rounds_agreement",
]
