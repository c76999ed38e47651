"""Tasks get a short name unique per campaign, so a campaign may hold several tasks of a kind.

Existing tasks are named after their kind (answer, formula, openqa, document): the one task of
each kind a campaign could hold until now, so ``--task answer`` names the same task as before.
"""

import django.db.models.deletion
from django.db import migrations, models


def name_from_kind(apps, schema_editor):  # type: ignore[no-untyped-def]
    RetrievalTask = apps.get_model("collection", "RetrievalTask")
    RetrievalTask.objects.filter(name="").update(name=models.F("kind"))


class Migration(migrations.Migration):
    dependencies = [
        ("collection", "0009_task_pool_comment_formulas"),
    ]

    operations = [
        migrations.AddField(
            model_name="retrievaltask",
            name="name",
            field=models.SlugField(
                default="",
                help_text="Short name, unique in the campaign (e.g. task1, covid-docs); commands "
                "take it as --task.",
                max_length=40,
            ),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="retrievaltask",
            name="answer_task",
            field=models.ForeignKey(
                blank=True,
                help_text="For open QA: the answer task whose pools its answers join and whose "
                "official topics its means are over (empty: the campaign's only answer task).",
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="collection.retrievaltask",
            ),
        ),
        migrations.RunPython(name_from_kind, migrations.RunPython.noop, elidable=False),
        migrations.RemoveConstraint(
            model_name="retrievaltask",
            name="task_kind_unique_per_campaign",
        ),
        migrations.AddConstraint(
            model_name="retrievaltask",
            constraint=models.UniqueConstraint(
                fields=("campaign", "name"), name="task_name_unique_per_campaign"
            ),
        ),
    ]
