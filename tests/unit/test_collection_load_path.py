"""Which way an import file is loaded, by database and whether its table holds rows."""

import pytest

from collection.services.collection_import import LoadPath, load_path


@pytest.mark.parametrize(
    ("vendor", "empty", "expected"),
    [
        ("postgresql", True, LoadPath.COPY),
        ("postgresql", False, LoadPath.STAGED_COPY),
        ("sqlite", True, LoadPath.BULK_CREATE),
        ("sqlite", False, LoadPath.STAGED_INSERT),
    ],
)
def test_load_path_stages_and_upserts_when_the_table_holds_rows(
    vendor: str, empty: bool, expected: LoadPath
) -> None:
    assert load_path(vendor=vendor, empty=empty) is expected
