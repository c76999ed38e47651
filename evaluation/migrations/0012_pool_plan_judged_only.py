# A plan may replay condensed runs; plans recorded before replayed runs whole (False).

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("evaluation", "0011_pool_plan_pool_runs"),
    ]

    operations = [
        migrations.AddField(
            model_name="poolplanjob",
            name="judged_only",
            field=models.BooleanField(default=False),
        ),
    ]
