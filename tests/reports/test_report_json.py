"""The ``--json`` report is written record by record, and reads byte for byte as one
``json.dumps(..., sort_keys=True, indent=2)`` of the whole document did."""

from __future__ import annotations

import json

import pytest

from tests.reports._records import library_records
from unsolvable._record import SCHEMA_VERSION
from unsolvable.reports._cells import report_json
from unsolvable.reports._metrics import measure


@pytest.mark.parametrize("count", [0, 1, 7])
@pytest.mark.parametrize("interrupted", [False, True])
@pytest.mark.parametrize("volatile", [False, True])
def test_the_report_is_what_one_dumps_of_the_document_gives(
    count: int, interrupted: bool, volatile: bool
) -> None:
    records = library_records()[:count]
    metrics = measure(records)
    document: dict[str, object] = {
        "schema_version": SCHEMA_VERSION,
        "records": [record.to_dict(volatile=volatile) for record in records],
        "metrics": metrics.to_dict(),
    }
    if interrupted:
        document["interrupted"] = True
    written = report_json(records, metrics, volatile=volatile, interrupted=interrupted)
    assert written == json.dumps(document, sort_keys=True, indent=2) + "\n"
