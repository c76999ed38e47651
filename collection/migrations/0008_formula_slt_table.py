"""Formula MathML moves to a table of its own (the SLT pass loads by COPY).

The MathML already stored moves with it; formulas without MathML get no row.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('collection', '0007_document_collections'),
    ]

    operations = [
        migrations.CreateModel(
            name='FormulaSlt',
            fields=[
                ('formula', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='slt', serialize=False, to='collection.formula')),
                ('mathml', models.TextField()),
            ],
        ),
        migrations.RunSQL(
            "INSERT INTO collection_formulaslt (formula_id, mathml) "
            "SELECT formula_id, slt FROM collection_formula WHERE slt <> ''",
            reverse_sql=(
                "UPDATE collection_formula SET slt = (SELECT s.mathml FROM collection_formulaslt s "
                "WHERE s.formula_id = collection_formula.formula_id) "
                "WHERE formula_id IN (SELECT formula_id FROM collection_formulaslt)"
            ),
        ),
        migrations.RemoveField(
            model_name='formula',
            name='slt',
        ),
        migrations.AddIndex(
            model_name='formula',
            index=models.Index(condition=models.Q(('visual_id__startswith', 'c')), fields=['formula_id'], name='formula_computed_visual_id'),
        ),
    ]
