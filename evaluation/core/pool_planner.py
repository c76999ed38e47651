"""The pool planner: replay budgeted pooling strategies against prior qrels and say what each
budget would have bought. Pure: plain data in, plain rows out (files: ``planner_files``).

For every strategy and budget (a total number of judgments over the topics):

- the strategy pools from the pool runs only; an adaptive one learns from the prior qrels as
  it goes, a document outside them counting as not relevant (grade 0);
- the reduced qrels are the pooled documents with their prior grades (0 when absent);
- judgments, relevant (grade >= the relevance level) found, and their share of the prior
  qrels' relevant documents;
- every run (pooled or not) is scored under each measure with trec_eval's rules
  (``evaluation.core.trec_measures.MeasureEvaluator``, averaged as ``trec_eval -c``) on the
  reduced and on the full qrels; Kendall's tau-b and tau-AP compare the two rankings
  (``evaluation.core.rank_correlation``, the full qrels the reference);
- leave-one-group-out: for every group with a pool run, the pool is rebuilt without the
  group's runs; the group's best run (under the strategy's pool) loses score(pool) -
  score(pool without the group); ``max_group_drop`` is the largest loss and its group.

Every strategy but depth-k judges in one order whose prefixes are the smaller budgets' pools,
so each is replayed once, to the largest budget. Strategies are independent: ``workers``
forked processes may replay them at once (the rows are the same, in the same order).

Condensed replay (``condensed``, Sakai, SIGIR 2007, "condensed lists"): every run, pooled or
not, keeps only the documents the prior qrels judged, in its own order. The prior qrels then
judge everything a strategy can pool and everything a run is scored on, as a deep pool would:
a shallow collection's unjudged documents no longer count as not relevant however relevant
they are, so what a strategy finds and how well it ranks the runs is measured against
judgments that are complete for the runs as replayed.
"""

from __future__ import annotations

import gc
import multiprocessing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from evaluation.core.measures import Grades, Scores
from evaluation.core.rank_correlation import kendall_tau_b, tau_ap
from evaluation.core.ranking import trec_ranking
from evaluation.core.trec_measures import Measure, MeasureEvaluator, MeasureScores, summary
from pooling.core.algorithms.strategies import (
    Budget,
    Order,
    Pool,
    Ranked,
    Strategy,
    TopicFusion,
    build_pool,
    fusion_weight,
    hybrid_start,
    judging_order,
    pool_of,
)
from pooling.core.algorithms.strategies.fusion import (
    RRF_K,
    fused_order_without,
    fused_weights,
    retrieved_by,
    rrf_weight,
)


@dataclass(slots=True)
class PlannerInput:
    grades: dict[str, dict[str, int]]  # the prior qrels: topic -> docno -> grade
    runs: dict[str, Scores]  # run tag -> topic -> docno -> score (all runs scored)
    pool_tags: list[str]  # the runs strategies may pool from
    groups: dict[str, str]  # run tag -> group (a run without one is its own group)
    measures: list[Measure]
    relevance_level: int = 1


@dataclass(slots=True)
class PlanRow:
    strategy: str
    budget: int
    judgments: int
    relevant: int
    relevant_share: float
    tau: dict[str, float | None] = field(default_factory=dict)  # None: a ranking ties all
    tau_ap: dict[str, float | None] = field(default_factory=dict)
    max_group_drop: dict[str, dict[str, object]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        return {
            "strategy": self.strategy,
            "budget": self.budget,
            "judgments": self.judgments,
            "relevant": self.relevant,
            "relevant_share": self.relevant_share,
            "tau": self.tau,
            "tau_ap": self.tau_ap,
            "max_group_drop": self.max_group_drop,
        }


def condensed(data: PlannerInput) -> PlannerInput:
    """The input with every run condensed to the judged documents of each topic (see the
    module doc); a topic left with none is dropped from that run, as a run that did not
    answer it (trec_eval -c scores it 0)."""
    runs: dict[str, Scores] = {}
    for tag, run in data.runs.items():
        kept: dict[str, dict[str, float]] = {}
        for topic, docs in run.items():
            judged = data.grades.get(topic, {})
            ranking = trec_ranking({d: s for d, s in docs.items() if d in judged})
            if ranking:
                kept[topic] = ranking
        runs[tag] = kept
    return replace(data, runs=runs)


def _ties_every_run(scores: Mapping[str, float]) -> bool:
    return len(set(scores.values())) < 2


def ranked_runs(data: PlannerInput) -> Ranked:
    """topic -> pool run tag -> docnos in trec_eval's order (score, then docno, descending)."""
    return {
        topic: {
            tag: list(trec_ranking(data.runs[tag][topic]))
            for tag in data.pool_tags
            if data.runs[tag].get(topic)
        }
        for topic in sorted(data.grades)
    }


def without_group(ranked: Ranked, groups: Mapping[str, str], group: str) -> Ranked:
    return {
        topic: {tag: docs for tag, docs in runs.items() if groups[tag] != group}
        for topic, runs in ranked.items()
    }


def reduced_qrels(pool: Pool, grades: Grades) -> dict[str, dict[str, int]]:
    """The pooled documents with their prior grades (0 outside the prior qrels)."""
    return {t: {d: grades[t].get(d, 0) for d in docs} for t, docs in pool.items() if docs}


def evaluate_runs(
    data: PlannerInput, qrels: Grades, tags: Sequence[str], topics: Sequence[str] | None = None
) -> dict[str, MeasureScores]:
    """run tag -> its scores under ``qrels`` (trec_eval -c), on ``topics`` only if given."""
    if topics is not None:
        qrels = {t: qrels[t] for t in topics if t in qrels}
    evaluator = MeasureEvaluator(qrels, data.measures, relevance_level=data.relevance_level)
    found = {}
    for tag in tags:
        run = data.runs[tag]
        if topics is not None:
            run = {t: run[t] for t in topics if t in run}
        found[tag] = evaluator.evaluate(run, average="all")
    return found


def means(scores: Mapping[str, MeasureScores]) -> dict[str, dict[str, float]]:
    """measure name -> run tag -> mean."""
    found: dict[str, dict[str, float]] = {}
    for tag, result in scores.items():
        for name, value in result.measures.items():
            found.setdefault(name, {})[tag] = value
    return found


def means_with(
    base: MeasureScores, changed: MeasureScores, topics: Sequence[str], measures: Sequence[Measure]
) -> dict[str, float]:
    """A run's means when the topics ``changed`` was scored on take its values, the others
    keep ``base``'s: per-topic values do not depend on other topics' qrels, so this equals
    scoring the run on the whole changed qrels (same topics), at the cost of the changed ones."""
    return {
        m.name: summary(
            m.trec,
            [
                (changed if t in changed.per_topic or t in changed.missing else base).value(
                    t, m.name
                )
                for t in topics
            ],
        )
        for m in measures
    }


class Planner:
    """Replays strategies on one planner input; ``rows`` gives the table."""

    def __init__(self, data: PlannerInput, seed: int = 0) -> None:
        # Every run is scored once per strategy, budget and group: ranked once, here.
        runs: dict[str, Scores] = {
            tag: {t: trec_ranking(d) for t, d in run.items()} for tag, run in data.runs.items()
        }
        self.data = data = replace(data, runs=runs)
        self.seed = seed
        self.ranked = ranked_runs(data)
        self.tags = sorted(data.runs)
        self.full = means(evaluate_runs(data, data.grades, self.tags))
        level = data.relevance_level
        self.relevant_total = sum(
            1 for docs in data.grades.values() for g in docs.values() if g >= level
        )
        pooled_groups = {data.groups[t] for t in data.pool_tags}
        self.group_ranked = {
            g: without_group(self.ranked, data.groups, g) for g in sorted(pooled_groups)
        }
        self.members: dict[str, list[str]] = {}
        for tag in self.tags:
            self.members.setdefault(data.groups[tag], []).append(tag)

    def judge(self, topic: str, doc: str) -> bool:
        return self.data.grades[topic].get(doc, 0) >= self.data.relevance_level

    def pools(self, strategy: Strategy, budgets: Sequence[int]) -> dict[str | None, list[Pool]]:
        """group left out (None: none) -> the pool at each budget."""
        ranked: dict[str | None, Ranked] = {None: self.ranked}
        ranked.update(self.group_ranked)
        if strategy.name == "depth":
            return {
                g: [
                    build_pool(strategy, r, Budget(total=b), self.judge, self.seed) for b in budgets
                ]
                for g, r in ranked.items()
            }
        top = max(budgets)
        if strategy.name in ("rrf", "rbp"):
            orders = self._fused_orders(strategy, top)
        else:
            heads = self._hybrid_heads(strategy) if strategy.name == "hybrid" else {}
            orders = {
                g: judging_order(
                    strategy, r, Budget(total=top), self.judge, self.seed, heads.get(g)
                )
                for g, r in ranked.items()
            }
        return {g: [pool_of(o[:b], self.ranked) for b in budgets] for g, o in orders.items()}

    def _hybrid_heads(self, strategy: Strategy) -> dict[str | None, dict[str, list[str]]]:
        """group left out (None: none) -> topic -> the first documents hybrid's start judges
        in RRF order: each topic's runs are indexed once, not fused afresh per group."""
        start = hybrid_start(strategy)
        fusions = {t: TopicFusion(runs, rrf_weight(RRF_K)) for t, runs in self.ranked.items()}
        groups = self.data.groups
        return {
            g: {
                t: fusion.head([tag for tag in self.ranked[t] if groups[tag] != g], start)
                for t, fusion in fusions.items()
            }
            for g in [None, *self.group_ranked]
        }

    def _fused_orders(self, strategy: Strategy, top: int) -> dict[str | None, Order]:
        weight = fusion_weight(strategy)
        fused = {t: fused_weights(runs, weight) for t, runs in self.ranked.items()}
        counts = {t: retrieved_by(runs) for t, runs in self.ranked.items()}
        every = sorted((-w, t, d) for t, ws in fused.items() for d, w in ws.items())
        full = [(t, d) for _w, t, d in every]
        orders: dict[str | None, Order] = {None: full[:top]}
        for group in self.group_ranked:
            removed = {
                t: [runs[tag] for tag in runs if self.data.groups[tag] == group]
                for t, runs in self.ranked.items()
            }
            orders[group] = fused_order_without(full, fused, counts, removed, weight, top)
        return orders

    def rows(
        self, strategies: Sequence[Strategy], budgets: Sequence[int], workers: int = 1
    ) -> list[PlanRow]:
        """The rows of every strategy (in the order given) at every budget; ``workers``
        processes replay one strategy each at a time (fork: they inherit this planner)."""
        workers = min(workers, len(strategies))
        if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
            return [row for s in strategies for row in self.strategy_rows(s, budgets)]
        global _PLANNING
        _PLANNING = self
        # The workers share this planner's pages until they write to them; the collector
        # would write to every object it scans (the runs: millions), so it leaves those be.
        gc.freeze()
        try:
            # imap hands back each strategy's rows in the order given, whoever replayed it.
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                jobs = [(s, list(budgets)) for s in strategies]
                return [row for rows in pool.imap(_replayed, jobs, chunksize=1) for row in rows]
        finally:
            gc.unfreeze()
            _PLANNING = None

    def strategy_rows(self, strategy: Strategy, budgets: Sequence[int]) -> list[PlanRow]:
        pools = self.pools(strategy, budgets)
        return [
            self._row(strategy, budget, {g: p[index] for g, p in pools.items()})
            for index, budget in enumerate(budgets)
        ]

    def _row(self, strategy: Strategy, budget: int, pools: Mapping[str | None, Pool]) -> PlanRow:
        data = self.data
        pool = pools[None]
        qrels = reduced_qrels(pool, data.grades)
        level = data.relevance_level
        relevant = sum(1 for docs in qrels.values() for g in docs.values() if g >= level)
        scored = evaluate_runs(data, qrels, self.tags)
        reduced = means(scored)
        row = PlanRow(
            strategy.label,
            budget,
            sum(len(docs) for docs in pool.values()),
            relevant,
            relevant / self.relevant_total if self.relevant_total else 0.0,
        )
        for m in data.measures:
            full, estimate = self.full[m.name], reduced[m.name]
            # A ranking that ties every run (nothing judged, or nothing relevant judged) orders
            # nothing: a correlation with it is undefined, not 0 ("no agreement").
            defined = not (_ties_every_run(full) or _ties_every_run(estimate))
            row.tau[m.name] = kendall_tau_b(full, estimate) if defined else None
            row.tau_ap[m.name] = tau_ap(full, estimate) if defined else None
            row.max_group_drop[m.name] = {"drop": 0.0, "group": None}
        for group, without in pools.items():
            if group is not None:
                self._group_drop(row, group, scored, qrels, reduced_qrels(without, data.grades))
        return row

    def _group_drop(
        self,
        row: PlanRow,
        group: str,
        scored: Mapping[str, MeasureScores],
        qrels: Grades,
        without: Grades,
    ) -> None:
        """Record the group's drop where it beats the row's largest so far."""
        measures = self.data.measures
        members = self.members[group]
        best = {
            m.name: max(members, key=lambda tag: (scored[tag].measures[m.name], tag))
            for m in measures
        }
        tags = sorted(set(best.values()))
        changed = [t for t in sorted(set(qrels) | set(without)) if qrels.get(t) != without.get(t)]
        if not changed:
            return  # the group's runs brought nothing only they retrieved: no drop
        if set(qrels) == set(without):  # same topics: score only those whose qrels changed
            partial = evaluate_runs(self.data, without, tags, changed)
            topics = sorted(qrels)
            left_out = {t: means_with(scored[t], partial[t], topics, measures) for t in tags}
        else:
            left_out = {t: r.measures for t, r in evaluate_runs(self.data, without, tags).items()}
        for name, tag in best.items():
            drop = scored[tag].measures[name] - left_out[tag][name]
            if drop > row.max_group_drop[name]["drop"]:  # type: ignore[operator]
                row.max_group_drop[name] = {"drop": drop, "group": group, "run": tag}


_PLANNING: Planner | None = None  # the planner a forked worker replays strategies of


def _replayed(job: tuple[Strategy, list[int]]) -> list[PlanRow]:
    if _PLANNING is None:
        raise RuntimeError("a planner worker is forked by Planner.rows")
    return _PLANNING.strategy_rows(*job)


def plan_pools(
    data: PlannerInput,
    strategies: Sequence[Strategy],
    budgets: Sequence[int],
    seed: int = 0,
    workers: int = 1,
) -> list[PlanRow]:
    """One row per strategy and budget, in the order given (see the module doc); ``workers``
    processes replay the strategies (the rows are the same with any number)."""
    return Planner(data, seed).rows(strategies, budgets, workers)
