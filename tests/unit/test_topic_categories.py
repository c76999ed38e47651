"""Topic categories: the file's rules, and results by category computed by hand."""

from pathlib import Path

import pytest

from collection.core.formats.errors import ImportFileError
from collection.core.formats.topic_categories import topic_categories_parse
from evaluation.core.categories import category_subsets

GOOD = (
    "topic\ttype\tdifficulty\tdependency\nA.301\tproof\tmedium\tboth\nA.302\tcomputation\t\ttext\n"
)


def test_each_topic_gets_its_categories_when_the_file_is_good() -> None:
    found = topic_categories_parse(Path("cat.tsv"), GOOD.encode())
    assert [(e.line, e.topic, e.categories) for e in found] == [
        (2, "A.301", {"type": "proof", "difficulty": "medium", "dependency": "both"}),
        (3, "A.302", {"type": "computation", "dependency": "text"}),  # blank cell: left out
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "cat.tsv line 1: empty file"),
        ("number\ttype\n", "cat.tsv line 1: the first column must be 'topic'"),
        ("topic\n", "cat.tsv line 1: no category column"),
        ("topic\tType!\n", "cat.tsv line 1: category 'type!'"),
        ("topic\ttype\ttype\n", "cat.tsv line 1: a category column is named twice"),
        ("topic\ttype\nA.1\tproof\textra\n", "cat.tsv line 2: 3 columns, the header names 2"),
        ("topic\ttype\nA.1\tproof\nA.1\tconcept\n", "cat.tsv line 3: topic 'A.1' is listed twice"),
        ("topic\ttype\n\tproof\n", "cat.tsv line 2: topic: empty"),
        ("topic\ttype\nA.1\t" + "x" * 61 + "\n", "cat.tsv line 2: type: longer than 60"),
    ],
)
def test_a_bad_file_names_line_and_column_when_read(text: str, message: str) -> None:
    with pytest.raises(ImportFileError) as raised:
        topic_categories_parse(Path("cat.tsv"), text.encode())
    assert str(raised.value).startswith(message)


def test_not_utf8_is_refused_when_read() -> None:
    with pytest.raises(ImportFileError, match="not UTF-8"):
        topic_categories_parse(Path("cat.tsv"), b"topic\ttype\nA.1\t\xff\n")


def test_subset_means_follow_each_runs_averaging_when_topics_are_missing() -> None:
    categories = {
        "A.1": {"type": "proof"},
        "A.2": {"type": "proof"},
        "A.3": {"type": "concept"},
        "A.4": {"type": "concept"},  # not in the qrels: in no subset
    }
    qrels_topics = {"A.1", "A.2", "A.3", "A.5"}  # A.5 has no category
    all_topics = {"average": "all", "per_topic": {"A.1": {"m": 0.5}, "A.3": {"m": 0.25}}}
    own_topics = {"average": "run", "per_topic": {"A.1": {"m": 0.5}, "A.3": {"m": 0.25}}}
    found = category_subsets([all_topics, own_topics], categories, qrels_topics, "m")
    assert [(s.category, s.value, s.topics) for s in found] == [
        ("type", "concept", ("A.3",)),
        ("type", "proof", ("A.1", "A.2")),
    ]
    # concept: A.3 alone; proof: (0.5 + 0) / 2 for "all", 0.5 / 1 over the run's own topics.
    assert found[0].means == (0.25, 0.25)
    assert found[1].means == (0.25, 0.5)


def test_a_run_without_any_topic_of_a_subset_has_no_mean_when_averaging_its_own() -> None:
    found = category_subsets(
        [{"average": "run", "per_topic": {"A.2": {"m": 1.0}}}],
        {"A.1": {"type": "proof"}},
        {"A.1", "A.2"},
        "m",
    )
    assert found[0].means == (None,)
