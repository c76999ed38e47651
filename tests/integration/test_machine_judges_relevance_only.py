"""Machine judges from relevance-only qrels (classic collections list only relevant documents)."""

from __future__ import annotations

from pathlib import Path

import pytest

from assessment.models import Judgment, MachineJudge
from assessment.services.machine_judges import machine_judge_import
from collection.models import Document, DocumentCollection, RetrievalTask
from pooling.models import Hit, PoolItem
from tests.factories import RetrievalTaskFactory, TopicFactory
from tests.integration.machine_judge_data import write

pytestmark = pytest.mark.django_db


def test_relevance_only_qrels_grade_unlisted_pool_hits_0_when_the_organizer_says_so(
    tmp_path: Path,
) -> None:
    """Classic collections publish only the relevant documents: with the option, a pooled
    document of a topic the file grades but does not list is not relevant; a topic the file
    does not name stays ungraded. Without it, unlisted hits stay ungraded."""
    collection = DocumentCollection.objects.create(name="cisi")
    task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.DOCUMENT, collection=collection)
    hits = {}
    for number in ("1", "2"):
        topic = TopicFactory.create(task=task, number=number)
        for order, docno in enumerate(["D1", "D2", "D3"]):
            document, _ = Document.objects.get_or_create(
                collection=collection,
                docno=docno,
                defaults={"title": docno, "body": "text", "checksum": "0" * 32},
            )
            item = PoolItem.objects.create(
                topic=topic, key=docno, document=document, display_order=order
            )
            hits[number, docno] = Hit.objects.create(item=item, document=document)
    text = "1 0 D2 1\n"  # topic 1: only D2 is relevant; topic 2 not in the file

    judge, report = machine_judge_import(
        task=task,
        name="cisi-official",
        source=write(tmp_path, "cisi.qrels", text),
        unlisted_not_relevant=True,
    )
    graded = dict(Judgment.objects.filter(assessor=judge.account).values_list("hit_id", "grade"))
    assert graded == {hits["1", "D1"].pk: 0, hits["1", "D2"].pk: 1, hits["1", "D3"].pk: 0}
    assert report.unlisted == 2
    assert "2 pooled hits the file does not list were graded 0" in " ".join(report.lines())
    assert MachineJudge.objects.get(pk=judge.pk).unlisted_not_relevant is True

    # The same file without the option: not "unchanged", and the zeros are gone again.
    judge, report = machine_judge_import(
        task=task, name="cisi-official", source=write(tmp_path, "cisi.qrels", text)
    )
    assert report.status == "replaced"
    graded = dict(Judgment.objects.filter(assessor=judge.account).values_list("hit_id", "grade"))
    assert graded == {hits["1", "D2"].pk: 1}
    assert judge.unlisted_not_relevant is False
