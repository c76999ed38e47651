"""People and machine together: a run's measure estimated from a machine judge's grades of
every pool item, corrected by people's grades of a stratified sample of them, with a 95%
confidence interval. Pure, no Django.

Prediction-powered inference (Angelopoulos et al., Science 2023) as Oosterhuis et al. apply it
to IR evaluation ("Reliable Confidence Intervals for Information Retrieval Evaluation Using
Generative A.I.", KDD 2024, §4): the measure under the machine's labels, plus the mean error
of those labels measured where people judged (the rectifier), with an interval from the
variance of that correction. Here the people's sample is of pool items, drawn by
``evaluation.core.human_sample`` with a known inclusion probability pi_d for each, so the
rectifier is a Horvitz-Thompson sum and its variance Poisson sampling's (Särndal, Swensson and
Wretman 1992, §3.5, with the stratum corrections below as their §6.6 regression estimator):

    theta = sum_d c_d m'_d + sum_{d in S} c_d (g_d - m'_d) / pi_d
    var   = sum_{d in S} (1 - pi_d) (c_d (g_d - m'_d) / pi_d)^2

with m_d the gain the machine expects of item d (of its grade, or over its grade probabilities),
g_d the gain of the people's grade, c_d the weight the measure gives the item in this run, and
m'_d = m_d + gamma_h x_d + b_h the prediction of g_d: b_h the mean error measured in the sample
of the item's (topic, stratum) cell, or of its stratum when the cell has too few judged items
(weighted by 1/pi_d; see ``corrections.Shifts``), so that a judge that is lenient on its grade-1
items is corrected on all of them, not only the sampled ones; x_d the runs' support of the item
(``run_support``: how high and how many runs rank it) and gamma_h its slope in the stratum,
fitted on the judged items by weighted least squares with one level per cell. The runs'
consensus predicts relevance where the machine is wrong (a grade-0 item every run ranks first is
often relevant), so the residuals g_d - m'_d are smaller and so is the variance: on TREC-COVID
round 1 the intervals narrow by about 12%. The slope is one coefficient per stratum fitted on
hundreds of items; the variance leaves out its own fitting noise, as it does the normaliser's
(the coverage check is what says the intervals still hold). The target is the measure under the
full people's qrels of these pool items (a finite population), which is what the intervals are
checked to cover.

Two things are added for a small budget (``evaluator``). The variance above is a sum over the
run's judged items, which for a run whose items few others rank may be two or three: it is
pooled with the variance the design anticipates from every item's pi_d and its stratum's spread
of residuals, as a prior worth ten judged items. And theta is split into what is known (each
judged item's own residual at its own weight c_d) and the remainder for the items nobody judged
(weight (1 - pi_d) / pi_d): the point estimate shrinks that remainder toward the runs' mean
(``shrinkage``), which ranks the runs better; the interval stays theta's.

Measures that are a weighted sum of per-item gains are estimated this way: ``P_k`` (gain 1
from the relevance level) and ``ndcg_cut_k`` / ``ndcg`` (gain the grade; trec_eval's
1/log2(rank + 1) discount). nDCG's normaliser (the ideal DCG of the topic) depends on every
item's grade: it is computed from the topic's grade counts estimated the same way (machine
counts plus the weighted corrections) and then held fixed, so the interval leaves out the
normaliser's own uncertainty. Means are over ``topics`` (trec_eval -c: every qrels topic,
a topic missing from the run scores 0). A sampled item people have not judged yet is left
out, which keeps the estimate unbiased only when what is left unjudged is unrelated to the
grade: the pages say how many of the drawn items are judged.
"""

from evaluation.core.ppi.corrections import MIN_CELL, MIN_SLOPE_ITEMS, run_support
from evaluation.core.ppi.evaluator import Z_95, Estimate, PpiEvaluator
from evaluation.core.ppi.measures import (
    NDCG_DEPTH,
    LinearMeasure,
    UnsupportedMeasure,
    exact_value,
    ideal_dcg,
    linear_measure,
    machine_norms,
    run_weights,
)

__all__ = [
    "MIN_CELL",
    "MIN_SLOPE_ITEMS",
    "NDCG_DEPTH",
    "Z_95",
    "Estimate",
    "LinearMeasure",
    "PpiEvaluator",
    "UnsupportedMeasure",
    "exact_value",
    "ideal_dcg",
    "linear_measure",
    "machine_norms",
    "run_support",
    "run_weights",
]
