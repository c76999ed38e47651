"""Who judges which topic: official assignments, balancing, moving, revoking, dual assessment.

Each topic has one active official assignment; an organizer assigns topics by
hand or balances the unassigned topics of a task so pool sizes per assessor are even; dual
assessment gives a topic to a second assessor who is blind to the first. Moving
an assignment hands the topic to another assessor who stays blind to the judgments already
made (see ``assignment_move`` and docs/agreement.md "Moving a topic").

- ``rules``: what every assignment write obeys (no machine judge gets topics; one active
  official assignment per topic, a clash becoming an AssignmentError);
- ``official``: giving topics by hand and balancing pool sizes;
- ``moves``: moving and revoking an assignment;
- ``dual``: the second, blind assessment;
- ``scoped``: assignments of chosen pool items (a drawn human sample's), taking items out;
- ``actions``: the organizer's actions, one dispatch for the page and the REST API.
"""

from assessment.services.assignments.actions import (
    ASSIGNMENT_ACTIONS,
    ActionDone,
    AssignmentAction,
    assignment_action_apply,
    move_message,
)
from assessment.services.assignments.dual import dual_assignments_create
from assessment.services.assignments.moves import (
    AssignmentMove,
    assignment_move,
    assignment_revoke,
)
from assessment.services.assignments.official import (
    assignments_balance,
    assignments_create,
    balance_plan,
)
from assessment.services.assignments.rules import AssignmentError
from assessment.services.assignments.scoped import ScopeItemsRemoved, scope_items_remove

__all__ = [
    "ASSIGNMENT_ACTIONS",
    "ActionDone",
    "AssignmentAction",
    "AssignmentError",
    "AssignmentMove",
    "ScopeItemsRemoved",
    "assignment_action_apply",
    "assignment_move",
    "assignment_revoke",
    "assignments_balance",
    "assignments_create",
    "balance_plan",
    "dual_assignments_create",
    "move_message",
    "scope_items_remove",
]
