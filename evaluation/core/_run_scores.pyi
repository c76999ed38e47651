# The compiled hot path of evaluation.core.runfiles (_run_scores.c).
def run_scores(
    text: str, width: int, topic: int, doc: int, score: int, tag: int, loose: bool, /
) -> tuple[str, dict[str, dict[str, float]]] | None: ...
