"""The migration that moves formula MathML into its own table (collection 0008)."""

import pytest

from tests.integration.migration_steps import latest, migrate

BEFORE = [("collection", "0007_document_collections")]
AFTER = [("collection", "0008_formula_slt_table")]


@pytest.mark.django_db(transaction=True)
def test_stored_mathml_moves_and_empty_mathml_gets_no_row_when_migrated() -> None:
    apps = migrate(BEFORE)
    try:
        thread = apps.get_model("collection", "Thread").objects.create(id=1, title="t")
        post = apps.get_model("collection", "Post").objects.create(id=1, thread=thread, kind=1)
        formula_model = apps.get_model("collection", "Formula")
        for formula_id, slt in ((1, "<math><mi>x</mi></math>"), (2, "")):
            formula_model.objects.create(
                formula_id=formula_id,
                post=post,
                thread=thread,
                location="question",
                visual_id=str(formula_id),
                latex="x",
                slt=slt,
            )
        apps = migrate(AFTER)
        stored = dict(
            apps.get_model("collection", "FormulaSlt").objects.values_list("pk", "mathml")
        )
        assert stored == {1: "<math><mi>x</mi></math>"}
        apps = migrate(BEFORE)  # and back: the MathML returns to its formula
        slts = dict(apps.get_model("collection", "Formula").objects.values_list("pk", "slt"))
        assert slts == {1: "<math><mi>x</mi></math>", 2: ""}
    finally:
        migrate(latest())
