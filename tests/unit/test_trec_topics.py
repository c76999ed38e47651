"""Topic files of document tasks: TREC SGML and XML, TSV and JSONL queries."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from collection.core.formats.errors import ImportFileError
from collection.core.formats.topic_text import QueryTopic
from collection.core.formats.trec_topics import detect_topic_format, parse_query_topics

ROBUST = """<top>
<num> Number: 301
<title> International Organized Crime

<desc> Description:
Identify organizations that participate in international criminal
activity, the activity, and, if possible, collaborating organizations
and the countries involved.

<narr> Narrative:
A relevant document must as a minimum identify the organization and the
type of illegal activity (e.g., Columbian cartel exporting cocaine).

Vague references to international drug trade are not relevant.
</top>

<top>
<num> Number: 302
<title> Poliomyelitis and Post-Polio

<desc> Description:
Is the disease of Poliomyelitis (polio) under control in the world?

<narr> Narrative:
Relevant documents should contain data or outbreaks of the polio disease.
</top>
"""

# TREC-1/2 (topics 51-200): "Topic:" in the title, zero-padded numbers, more fields, no </top>
# before the next topic, upper-case tags with closing tags.
TIPSTER = """<top>
<head> Tipster Topic Description
<num> Number:  051
<dom> Domain: International Economics
<title> Topic:  Airbus Subsidies
<desc> Description:
Document will discuss government assistance to Airbus Industrie.
<smry> Summary:
Document will discuss government assistance to Airbus Industrie.
<narr> Narrative:
To be relevant, a document must cite a specific case of assistance.
<con> Concept(s):
1.  Airbus Industrie
2.  European aircraft consortium
<fac> Factor(s):
<nat> Nationality: U.S.
</fac>
<def> Definition(s):
<top>
<NUM> Topic: 52 </NUM>
<TITLE> South African Sanctions </TITLE>
<DESC> Description: Sanctions against South Africa. </DESC>
</top>
"""

WEB_XML = """<?xml version="1.0" encoding="UTF-8"?>
<webtrack2009>
<topic number="1" type="faceted">
  <query>obama family tree</query>
  <description>Find information on President Barack Obama's family
  history, including genealogy.</description>
  <subtopic number="1" type="nav">Find the TIME magazine photo essay.</subtopic>
  <subtopic number="2" type="inf">Where did Barack Obama's parents meet?</subtopic>
</topic>
<topic number="2" type="ambiguous">
  <query>french lick resort and casino</query>
  <description>Find information on French Lick Resort &amp; Casino.</description>
</topic>
</webtrack2009>
"""

COVID_XML = """<topics>
<topic number="1">
  <query>coronavirus origin</query>
  <question>what is the origin of COVID-19</question>
  <narrative>seeking range of information about the SARS-CoV-2 virus's origin</narrative>
</topic>
</topics>
"""


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def by_number(topics: list[QueryTopic]) -> dict[str, QueryTopic]:
    return {topic.number: topic for topic in topics}


def test_robust_topics_keep_title_description_and_paragraphs_of_the_narrative(tmp_path) -> None:
    topics = parse_query_topics(write(tmp_path, "topics.301-302", ROBUST))
    assert [t.number for t in topics] == ["301", "302"]
    first = topics[0]
    assert first.title == "International Organized Crime"
    assert first.description.startswith("Identify organizations that participate")
    assert "collaborating organizations and the countries involved." in first.description
    assert first.narrative.split("\n\n") == [
        "A relevant document must as a minimum identify the organization and the type of "
        "illegal activity (e.g., Columbian cartel exporting cocaine).",
        "Vague references to international drug trade are not relevant.",
    ]
    assert (first.line, topics[1].line) == (1, 17)
    assert first.metadata == {}


def test_tipster_variants_are_read_when_labels_padding_and_closing_tags_vary(tmp_path) -> None:
    topics = by_number(parse_query_topics(write(tmp_path, "topics.51", TIPSTER)))
    assert set(topics) == {"51", "52"}  # "Number: 051" is topic 51 of the qrels
    airbus = topics["51"]
    assert airbus.title == "Airbus Subsidies"
    assert airbus.description == "Document will discuss government assistance to Airbus Industrie."
    assert airbus.narrative.startswith("To be relevant")
    assert airbus.metadata["smry"].startswith("Document will discuss")
    assert airbus.metadata["con"] == "1. Airbus Industrie 2. European aircraft consortium"
    assert airbus.metadata["dom"] == "International Economics"
    assert airbus.metadata["head"] == "Tipster Topic Description"
    assert airbus.metadata["nat"] == "U.S."
    assert airbus.metadata["fac"] == ""
    sanctions = topics["52"]
    assert (sanctions.title, sanctions.description) == (
        "South African Sanctions",
        "Sanctions against South Africa.",
    )


def test_web_track_xml_keeps_subtopics_and_type_as_metadata(tmp_path) -> None:
    topics = by_number(parse_query_topics(write(tmp_path, "wt09.topics.xml", WEB_XML)))
    obama = topics["1"]
    assert obama.title == "obama family tree"
    assert obama.description == (
        "Find information on President Barack Obama's family history, including genealogy."
    )
    assert obama.metadata["type"] == "faceted"
    assert obama.metadata["subtopics"] == [
        {"number": "1", "type": "nav", "text": "Find the TIME magazine photo essay."},
        {"number": "2", "type": "inf", "text": "Where did Barack Obama's parents meet?"},
    ]
    assert topics["2"].description == "Find information on French Lick Resort & Casino."
    assert obama.line == 3


def test_trec_covid_xml_question_becomes_the_description(tmp_path) -> None:
    (topic,) = parse_query_topics(write(tmp_path, "topics-rnd5.xml", COVID_XML))
    assert (topic.number, topic.title) == ("1", "coronavirus origin")
    assert topic.description == "what is the origin of COVID-19"
    assert topic.narrative.startswith("seeking range")


def test_tsv_queries_keep_quotes_and_skip_blank_lines(tmp_path) -> None:
    text = '1048585\twhat is paula deen\'s brother\r\n\n19335\t"anthropological" definition\n'
    topics = parse_query_topics(write(tmp_path, "queries.tsv", text))
    assert [(t.number, t.title, t.line) for t in topics] == [
        ("1048585", "what is paula deen's brother", 1),
        ("19335", '"anthropological" definition', 3),
    ]


def test_tsv_header_names_description_narrative_and_metadata_columns(tmp_path) -> None:
    text = "qid\tquery\tnarrative\tcategory\n7\tsolar panels\tAbout panels.\tenergy\n"
    (topic,) = parse_query_topics(write(tmp_path, "q.tsv", text), "tsv")
    assert (topic.number, topic.title, topic.narrative) == ("7", "solar panels", "About panels.")
    assert topic.metadata == {"category": "energy"}


def test_jsonl_queries_take_each_id_and_text_field_and_keep_the_rest(tmp_path) -> None:
    lines = [
        {"_id": "q1", "text": "a query", "metadata": {"url": "x"}},
        {"qid": 2, "query": "second", "narrative": "be relevant", "lang": "en"},
        {"query_id": "3", "title": "third", "description": "about it"},
    ]
    text = "\n".join(json.dumps(line) for line in lines) + "\n"
    topics = parse_query_topics(write(tmp_path, "queries.jsonl", text))
    assert [(t.number, t.title) for t in topics] == [
        ("q1", "a query"),
        ("2", "second"),
        ("3", "third"),
    ]
    assert topics[0].metadata == {"metadata": {"url": "x"}}
    assert (topics[1].narrative, topics[1].metadata) == ("be relevant", {"lang": "en"})
    assert topics[2].description == "about it"


def test_gzip_and_byte_order_mark_are_accepted_whatever_the_file_name(tmp_path) -> None:
    plain = parse_query_topics(write(tmp_path, "topics.txt", ROBUST))
    packed = gzip.compress(("\ufeff" + ROBUST).encode())
    assert parse_query_topics(write(tmp_path, "topics.dat", packed)) == plain
    assert parse_query_topics(write(tmp_path, "q.tsv", "\ufeff1\tfirst\n"))[0].number == "1"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  <top>\n<num> 1", "trec"),
        ("<topics><topic number='1'>", "trec"),
        ('{"_id": 1}', "jsonl"),
        ("1\tquery", "tsv"),
        ("qid\tquery\n", "tsv"),
    ],
)
def test_format_is_detected_from_the_content(text: str, expected: str) -> None:
    assert detect_topic_format(text) == expected


@pytest.mark.parametrize(
    ("name", "text", "line", "words"),
    [
        ("dup.trec", ROBUST.replace("302", "301"), 17, ["topic 301 appears twice", "line 1"]),
        ("dup.tsv", "1\ta\n2\tb\n1\tc\n", 3, ["topic 1 appears twice"]),
        ("nonum.trec", "<top>\n<title> x\n</top>\n", 1, ["without a number", "<num>"]),
        ("notitle.trec", "<top>\n<num> 5\n<desc> d\n</top>\n", 1, ["topic 5", "<title>"]),
        (
            "twice.trec",
            "<top>\n<num> 5\n<title> a\n<title> b\n</top>",
            4,
            ["<title> appears twice"],
        ),
        ("stray.trec", "<top>\n<num> 5\n<title> a\n</top>\nhello\n", 5, ["outside <top>"]),
        ("cols.tsv", "1\ta\n2\tb\tc\n", 2, ["3 columns", "qid<TAB>query"]),
        ("space.tsv", "1 2\ta\n", 1, ["white space", "number"]),
        ("empty.tsv", "1\t  \n", 1, ["title (query) is empty"]),
        ("bad.jsonl", '{"_id": "1", "text": "a"}\n{"_id": 2,\n', 2, ["not JSON"]),
        ("noid.jsonl", '{"text": "a"}\n', 1, ["_id, qid, query_id"]),
        ("notext.jsonl", '{"qid": "a"}\n', 1, ["text, query, title"]),
        ("list.jsonl", '{"qid": "a", "text": ["x"]}\n', 1, ["field 'text' is not a string"]),
        ("boolid.jsonl", '{"qid": true, "text": "x"}\n', 1, ["field 'qid'"]),
        ("array.jsonl", "[1, 2]\n", 1, ["not a JSON object"]),
        ("long.tsv", "1\t" + "w " * 6000 + "\n", 1, ["title has", "at most 10,000"]),
        ("xml.trec", "<topics><topic number='1'><query>a</query></topics>", 1, ["malformed XML"]),
        (
            "nonumber.xml",
            "<topics><topic><query>a</query></topic></topics>",
            1,
            ["without a number"],
        ),
    ],
)
def test_errors_name_file_line_and_field_when_a_topic_is_bad(
    tmp_path, name: str, text: str, line: int, words: list[str]
) -> None:
    with pytest.raises(ImportFileError) as caught:
        parse_query_topics(write(tmp_path, name, text))
    assert caught.value.line == line
    message = str(caught.value)
    assert message.startswith(f"{name} line {line}: ")
    for word in words:
        assert word in message


def test_a_file_that_is_not_utf8_or_binary_is_refused_with_its_line(tmp_path) -> None:
    with pytest.raises(ImportFileError, match=r"q.tsv line 2: not UTF-8"):
        parse_query_topics(write(tmp_path, "q.tsv", b"1\ta\n2\t\xff\n"))
    with pytest.raises(ImportFileError, match=r"b.tsv line 1: binary"):
        parse_query_topics(write(tmp_path, "b.tsv", b"1\t\x00a\n"))
    with pytest.raises(ImportFileError, match=r"g.tsv: unreadable gzip"):
        parse_query_topics(write(tmp_path, "g.tsv", gzip.compress(b"1\ta\n")[:-6]))
    with pytest.raises(ImportFileError, match="no topics found"):
        parse_query_topics(write(tmp_path, "e.tsv", "\n\n"))
