"""An assessor's assignments and how far each has got: progress, item statuses, what's next.

Training assignments cover only their round's items, scoped assignments only their scope's
(``AssignmentItem``); everything else an assessor reaches is
scoped through ``pool_items_of``. After a continue-move the hits judged by a previous
assessor count as done (``assessment.selectors.handover``); their grades are never read here.
Each function runs a fixed number of queries.

Progress is told in the task's own units (``Progress``): a formula task's pool items are
visually distinct formulae, each judged in up to N posts, so it counts both ("12 of 44
formulae · 30 of 100 posts"); an answer task's items are answers, one hit each.

- ``units``: ``Progress`` and the units it is told in;
- ``coverage``: what an assignment covers (``pool_items_of``), and the same rule in SQL;
- ``assignments``: an assessor's assignments with their progress; a closed (emptied) scope;
- ``items``: one assignment's item statuses, the next item, its progress;
- ``prepared``: an assignment as the ids of its prepared queries;
- ``official``: organizer progress, counted from official judgments.
"""

from assessment.selectors.progress.assignments import (
    SCOPE_EMPTIED_TEXT,
    AssignmentProgress,
    assignment_for,
    assignments_with_progress,
    scope_emptied,
)
from assessment.selectors.progress.coverage import (
    SubqueryCount,
    covered,
    pool_items_of,
    scope_key,
    with_covered_hits,
)
from assessment.selectors.progress.items import (
    ITEM_STATES,
    ItemStatus,
    item_statuses,
    next_unjudged_item_id,
    progress_of,
    statuses_of_items,
)
from assessment.selectors.progress.official import official_item_counts
from assessment.selectors.progress.prepared import assignment_from_ids, assignment_ids
from assessment.selectors.progress.units import Progress, Units, units_of

__all__ = [
    "ITEM_STATES",
    "SCOPE_EMPTIED_TEXT",
    "AssignmentProgress",
    "ItemStatus",
    "Progress",
    "SubqueryCount",
    "Units",
    "assignment_for",
    "assignment_from_ids",
    "assignment_ids",
    "assignments_with_progress",
    "covered",
    "item_statuses",
    "next_unjudged_item_id",
    "official_item_counts",
    "pool_items_of",
    "progress_of",
    "scope_emptied",
    "scope_key",
    "statuses_of_items",
    "units_of",
    "with_covered_hits",
]
