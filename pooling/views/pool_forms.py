"""The pool page's build form: the task's own rules, or a budgeted strategy judged in priority
order (document tasks; docs/pooling.md, "Budgeted pools in the app")."""

from __future__ import annotations

from typing import Any

from django import forms

from pooling.core.algorithms.strategies import StrategyError
from pooling.core.algorithms.strategies.priority import (
    MAX_BUDGET,
    STRATEGY_HELP,
    PoolStrategy,
    pool_strategy,
)

RULES = ""


class PoolStrategyForm(forms.Form):
    """Blank strategy: the task's rules. Otherwise strategy, budget, scope and seed."""

    strategy = forms.CharField(
        required=False, max_length=40, help_text=STRATEGY_HELP, label="Strategy"
    )
    budget = forms.IntegerField(required=False, min_value=1, max_value=MAX_BUDGET)
    scope = forms.ChoiceField(
        choices=[("topic", "per topic"), ("task", "for the whole task")], initial="topic"
    )
    seed = forms.IntegerField(required=False, min_value=0, max_value=2**31 - 1)

    def __init__(self, *args: Any, task_seed: int = 0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.task_seed = task_seed

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        text = (data.get("strategy") or "").strip()
        if not text:
            data["pool_strategy"] = None
            return data
        if data.get("budget") is None:
            self.add_error("budget", "A strategy needs a budget: how many judgments to spend.")
            return data
        seed = data.get("seed")
        try:
            data["pool_strategy"] = pool_strategy(
                text,
                data["budget"],
                data.get("scope") or "topic",
                self.task_seed if seed is None else seed,
            )
        except StrategyError as error:
            self.add_error("strategy", str(error))
        return data

    @staticmethod
    def initial_for(strategy: PoolStrategy | None, task_seed: int) -> dict[str, Any]:
        if strategy is None:
            return {"strategy": RULES, "scope": "topic", "seed": task_seed}
        return {
            "strategy": strategy.label,
            "budget": strategy.budget,
            "scope": strategy.scope,
            "seed": strategy.seed,
        }
