"""Lexical Overlap (ARQMath-3 Task 3) against hand-computed token F1."""

import pytest

from evaluation.core.lexical_overlap import (
    Reference,
    bag_of,
    lexical_overlap,
    token_f1,
    usable_task1_answer,
    word_tokens,
)


def test_word_tokens_split_words_and_symbols_and_drop_tags() -> None:
    assert word_tokens("<p>Let $x^2 = 4$, so X is 2.</p>") == [
        "let", "$", "x", "^", "2", "=", "4", "$", ",", "so", "x", "is", "2", ".",
    ]  # fmt: skip


def test_token_f1_counts_bags() -> None:
    # answer: a a b c (4 tokens); reference: a b b d e (5 tokens).
    # Common as bags: a once, b once -> 2. P = 2/4, R = 2/5, F1 = 2PR/(P+R) = 0.4/0.9 = 4/9.
    answer = bag_of(["a", "a", "b", "c"])
    reference = bag_of(["a", "b", "b", "d", "e"])
    assert token_f1(answer, reference) == pytest.approx(4 / 9)
    assert token_f1(answer, bag_of([])) == 0.0
    assert token_f1(bag_of(["x"]), bag_of(["y"])) == 0.0


def test_lexical_overlap_best_reference_per_topic_mean_over_topics_own_team_left_out() -> None:
    answers = {"A.1": "the sum is even", "A.2": "use induction on n"}
    references = {
        "A.1": [
            # Team 7's own answer: identical, but left out (F1 would be 1).
            Reference("the sum is even", team=7),
            # 2 of 4 tokens shared ("the", "is"); reference has 3: P 2/4, R 2/3 -> F1 4/7.
            Reference("the product is", team=8),
            # "sum", "is", "even" shared: P 3/4, R 3/5 -> F1 = 2*(9/20)/(27/20) = 2/3.
            Reference("<p>sum is always even here</p>", task1=True),
        ],
        # A.2 has only the run's own team's answer: no reference, scores 0.
        "A.2": [Reference("use induction on n", team=7)],
    }
    found = lexical_overlap(answers, references, team=7, topics=["A.1", "A.2", "A.3"])
    assert found.per_topic["A.1"] == pytest.approx(2 / 3)
    assert found.per_topic["A.2"] == 0.0
    assert found.no_reference == ["A.2"]
    # Mean over the three topics asked for; A.3 has no answer and scores 0.
    assert found.value == pytest.approx((2 / 3) / 3)
    assert found.topics == 3
    assert found.task1_references
    assert "word tokenizer" in found.description
    assert "Task 1 answers of at most 1,200 characters" in found.description
    # Another team sees team 7's answer as a reference: F1 1 on A.1.
    other = lexical_overlap({"A.1": "the sum is even"}, references, team=9)
    assert other.value == pytest.approx(1.0)


def test_lexical_overlap_tokenizer_is_pluggable_and_named() -> None:
    references = {"A.1": [Reference("x+1", team=2)]}
    # Words: x, +, 1 against x, +, 1 -> 1. Whitespace: "x+1" vs "x" "+" "1" -> 0.
    assert lexical_overlap({"A.1": "x + 1"}, references, team=1).value == pytest.approx(1.0)
    spaced = lexical_overlap({"A.1": "x + 1"}, references, team=1, tokenizer="whitespace")
    assert spaced.value == 0.0
    assert "whitespace tokenizer" in spaced.description
    assert not spaced.task1_references
    with pytest.raises(ValueError, match="unknown tokenizer 'bert'"):
        lexical_overlap({}, {}, team=1, tokenizer="bert")


def test_task1_reference_length_limit() -> None:
    assert usable_task1_answer("a" * 1200)
    assert not usable_task1_answer("a" * 1201)
