"""Pooling settings of a task and the depth each run is pooled to.

docs/pooling.md (ARQMath-3 defaults): answer pools take 45 posts of a primary run and 20 of
an alternate; formula pools take k = 25 visually distinct formulae of a primary run and 15 of an
alternate, with at most N = 5 instances judged per visually distinct formula. Baselines flagged
"pool as primary" use the primary values; a run's own override wins over both.
"""

from dataclasses import asdict, dataclass
from typing import Literal

from collection.core.task_defaults import ARQMATH

Role = Literal["primary", "alternate"]
FormulaPolicy = Literal["vote", "thread"]


@dataclass(frozen=True, slots=True)
class PoolSettings:
    """Everything a build depends on besides the runs; recorded with each build."""

    primary_depth: int = ARQMATH.primary_depth
    alternate_depth: int = ARQMATH.alternate_depth
    primary_k: int = ARQMATH.primary_k
    alternate_k: int = ARQMATH.alternate_k
    max_instances: int = ARQMATH.max_instances
    formula_policy: FormulaPolicy = "vote"
    seed: int = 0
    # Formula instances in comments: ARQMath's guidelines say "retrieved formulas from the
    # comments will be ignored"; a run's rows at such formulas are skipped unless this is set.
    comment_formulas: bool = False

    def as_dict(self) -> dict[str, int | str]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class RunSpec:
    """What pooling needs to know about a run (not its rows)."""

    run_id: int
    role: Role
    pool_as_primary: bool = False
    depth_override: int | None = None


def _pooled_as_primary(run: RunSpec) -> bool:
    return run.role == "primary" or run.pool_as_primary


def answer_depth(run: RunSpec, settings: PoolSettings) -> int:
    """Posts pooled from ``run``: its override, else the primary or alternate depth."""
    if run.depth_override is not None:
        return run.depth_override
    return settings.primary_depth if _pooled_as_primary(run) else settings.alternate_depth


def formula_k(run: RunSpec, settings: PoolSettings) -> int:
    """Visually distinct formulae pooled from ``run``: its override, else primary/alternate k."""
    if run.depth_override is not None:
        return run.depth_override
    return settings.primary_k if _pooled_as_primary(run) else settings.alternate_k
