"""import_topics against the real ARQMath topic files (PostgreSQL)."""

import shutil
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from collection.core.formats.errors import ImportFileError
from collection.core.formats.visual_ids import visual_id_for
from collection.models import Campaign, RetrievalTask, Topic, TopicFormula
from collection.services import TopicsImportReport, topics_import

pytestmark = pytest.mark.django_db


def import_year(data: Path, year: str, task: str, kind: str, **extra: object) -> TopicsImportReport:
    folder = data / "topics" / year
    return topics_import(
        path=folder / f"{task}-topics.xml",
        campaign_name=f"ARQMath {year}",
        task=kind,
        formulas_latex=folder / "topic-formulas-latex.tsv",
        formulas_slt=folder / "topic-formulas-slt.tsv",
        **extra,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("year", "answers", "formulas"), [("2020", 98, 85), ("2021", 100, 100), ("2022", 100, 100)]
)
def test_real_topic_files_import_with_their_formulas_when_given_both_tasks(
    arqmath_data: Path, year: str, answers: int, formulas: int
) -> None:
    assert import_year(arqmath_data, year, "task1", "answer") == TopicsImportReport(answers, 0, 0)
    assert import_year(arqmath_data, year, "task2", "formula") == TopicsImportReport(formulas, 0, 0)
    campaign = Campaign.objects.get(name=f"ARQMath {year}")
    tasks = {t.kind: t for t in campaign.tasks.all()}
    assert set(tasks) == {"answer", "formula"}
    assert tasks["answer"].topics.count() == answers
    formula_topics = list(tasks["formula"].topics.prefetch_related("formulas"))
    assert len(formula_topics) == formulas
    for topic in formula_topics:
        assert topic.formula_id.startswith("q_")
        assert topic.latex
        assert topic.thread_id is not None
        # The query formula is one of the topic's formulas, with a visual id.
        query = {f.formula_id: f for f in topic.formulas.all()}[topic.formula_id]
        assert query.visual_id.startswith("c")
        assert query.location in ("title", "body")
        # Formula topics are questions of the answer task too: linked by thread.
        assert topic.source_topic is not None
        assert topic.source_topic.number.split(".")[1] == topic.number.split(".")[1]


def test_2022_topic_b301_carries_its_query_formula_when_imported(arqmath_data: Path) -> None:
    import_year(arqmath_data, "2022", "task2", "formula")
    topic = Topic.objects.get(number="B.301")
    assert (topic.formula_id, topic.latex) == ("q_6", "\\|A\\|_2=\\sqrt{\\rho(A^TA)}")
    assert topic.thread_id == 4235721
    assert topic.tags == ["linear-algebra", "matrices", "inequality", "norm", "holder-inequality"]
    assert topic.title.startswith('Inequality between norm 1,norm 2 and norm <span class="math')
    assert topic.question.startswith("<p>Suppose <span")
    q6 = topic.formulas.get(formula_id="q_6")
    assert q6.latex == "\\|A\\|_2=\\sqrt{\\rho(A^TA)}"
    assert q6.slt.startswith("<math")
    assert q6.visual_id == visual_id_for(latex=q6.latex, slt=q6.slt)
    assert topic.formulas.count() == 8  # q_1 .. q_8 of question 301


def test_reimport_changes_nothing_when_the_file_is_the_same(arqmath_data: Path) -> None:
    import_year(arqmath_data, "2022", "task2", "formula")
    before = list(Topic.objects.order_by("id").values())
    formulas = TopicFormula.objects.count()
    assert import_year(arqmath_data, "2022", "task2", "formula") == TopicsImportReport(0, 0, 100)
    assert list(Topic.objects.order_by("id").values()) == before
    assert TopicFormula.objects.count() == formulas
    assert Campaign.objects.count() == 1


def test_changed_topic_is_updated_not_duplicated_when_reimported(
    arqmath_data: Path, tmp_path: Path
) -> None:
    original = arqmath_data / "topics" / "2022" / "task1-topics.xml"
    import_year(arqmath_data, "2022", "task1", "answer")
    first_id = Topic.objects.get(number="A.301").id
    changed = tmp_path / "task1-topics.xml"
    shutil.copy(original, changed)
    text = changed.read_text(encoding="utf-8")
    changed.write_text(text.replace("<Tags>linear-algebra,matrices,", "<Tags>norms,", 1))
    report = topics_import(path=changed, campaign_name="ARQMath 2022", task="answer")
    assert report == TopicsImportReport(created=0, updated=1, unchanged=99)
    topic = Topic.objects.get(number="A.301")
    assert topic.id == first_id
    assert topic.tags == ["norms", "inequality", "norm", "holder-inequality"]
    assert Topic.objects.count() == 100


@pytest.mark.parametrize(
    ("task", "kind", "message"),
    [
        ("task2", "answer", "task2-topics.xml line 3: topic B.301 is in the formula-task form"),
        ("task1", "formula", "task1-topics.xml line 3: topic A.301 is in the answer-task form"),
    ],
)
def test_import_refuses_the_file_when_its_form_does_not_fit_the_task(
    arqmath_data: Path, task: str, kind: str, message: str
) -> None:
    with pytest.raises(ImportFileError, match=message):
        import_year(arqmath_data, "2022", task, kind)
    assert not Campaign.objects.exists()
    assert not Topic.objects.exists()


def test_unknown_topic_form_stores_nothing_when_one_topic_is_broken(
    arqmath_data: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "task1-topics.xml"
    text = (arqmath_data / "topics" / "2022" / "task1-topics.xml").read_text(encoding="utf-8")
    # The last topic loses its question: the 99 before it must not be kept either.
    head, _, tail = text.rpartition("<Question>")
    broken.write_text(head + "<Body>" + tail.replace("</Question>", "</Body>", 1))
    with pytest.raises(ImportFileError, match=r"task1-topics.xml line \d+: unknown topic form"):
        topics_import(path=broken, campaign_name="C", task="answer")
    assert not Topic.objects.exists()


def test_import_fails_when_told_not_to_create_a_missing_campaign(arqmath_data: Path) -> None:
    with pytest.raises(ImportFileError, match="has no answer task"):
        import_year(arqmath_data, "2022", "task1", "answer", create=False)
    task = RetrievalTask.objects.create(
        campaign=Campaign.objects.create(name="ARQMath 2022"), kind="answer", name="answer"
    )
    import_year(arqmath_data, "2022", "task1", "answer", create=False)
    assert task.topics.count() == 100


def test_import_topics_command_reports_counts_and_errors_when_run(
    arqmath_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = arqmath_data / "topics" / "2021"
    call_command(
        "import_topics",
        str(folder / "task2-topics.xml"),
        "--campaign=ARQMath-2",
        "--task=formula",
        f"--formulas-latex={folder / 'topic-formulas-latex.tsv'}",
    )
    assert "100 topics created, 0 updated, 0 unchanged" in capsys.readouterr().out
    assert TopicFormula.objects.filter(topic__number="B.201").exclude(latex="").exists()
    bad = tmp_path / "topics.xml"
    bad.write_text('<?xml version="1.0"?>\n<Topics>\n<Topic number="A.1"><Title>x</Topic>\n')
    with pytest.raises(CommandError, match=r"^topics.xml line 3: malformed XML"):
        call_command("import_topics", str(bad), "--campaign=C", "--task=answer")


def test_openqa_task_takes_the_answer_topics_when_given_the_2022_task1_file(
    arqmath_data: Path,
) -> None:
    report = topics_import(
        path=arqmath_data / "topics" / "2022" / "task1-topics.xml",
        campaign_name="ARQMath-3",
        task="openqa",
    )
    assert report == TopicsImportReport(created=100, updated=0, unchanged=0)
    assert RetrievalTask.objects.get(kind="openqa").topics.filter(number="A.400").exists()
