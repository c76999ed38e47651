"""RAG runs stored before their report held what they contain (topics answered, sentences,
citations): computed from their answers, so the run pages show it for every RAG run."""

from django.db import migrations


def contents_fill(apps, schema_editor):  # type: ignore[no-untyped-def]
    Run = apps.get_model("pooling", "Run")
    RagAnswer = apps.get_model("nuggets", "RagAnswer")
    runs = Run.objects.filter(task__kind="rag").only("pk", "report")
    for run in runs.iterator(chunk_size=100):
        report = dict(run.report or {})
        if "rag" in report:
            continue
        answers = RagAnswer.objects.filter(run_id=run.pk).values_list(
            "sentences", "response_length"
        )
        cited: list[str] = []
        topics = sentences = words = 0
        for answer_sentences, length in answers.iterator(chunk_size=500):
            topics += 1
            words += length
            sentences += len(answer_sentences)
            cited.extend(c for s in answer_sentences for c in s.get("citations", []))
        report["rag"] = {
            "topics": topics,
            "sentences": sentences,
            "citations": len(cited),
            "segments": len(set(cited)),
            "words": words,
        }
        Run.objects.filter(pk=run.pk).update(report=report)


class Migration(migrations.Migration):
    dependencies = [
        ("nuggets", "0003_machine_nugget_proposals"),
    ]

    operations = [migrations.RunPython(contents_fill, migrations.RunPython.noop)]
