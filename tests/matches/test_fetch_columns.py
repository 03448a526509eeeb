"""Columns of a query as numpy arrays (services.rating.storage.fetch_columns), which the
refresh's decay reads every rating with: the same values, in the same order, as the rows."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest

from matches.dbfunctions import EpochSeconds
from matches.services.rating.storage import fetch_columns
from players.models import Rating
from tests.factories import BASE_TIME, RatingFactory

pytestmark = pytest.mark.django_db

TYPES = (20, 701, 701)  # bigint, double precision, double precision


def _query(**conditions):
    return (
        Rating.objects.filter(**conditions)
        .annotate(epoch=EpochSeconds("last_decay_at"))
        .values_list("id", "deviation", "epoch")
        .order_by("id")
    )


def test_columns_hold_the_rows_values_in_their_order():
    for n in range(5):
        RatingFactory(
            deviation=40.5 + n * 17.25,
            last_decay_at=BASE_TIME + timedelta(days=n, microseconds=250_000 * n),
        )
    RatingFactory(deviation=349.0)  # left out by the condition below
    query = _query(deviation__lt=300)
    ids, deviations, epochs = fetch_columns(query, TYPES)
    rows = list(query)
    assert len(rows) == 5
    assert ids.tolist() == [row[0] for row in rows]
    assert deviations.tolist() == [row[1] for row in rows]
    assert epochs.tolist() == pytest.approx([row[2] for row in rows], abs=1e-6)
    assert epochs[1] - epochs[0] == pytest.approx(86_400.25)
    assert (ids.dtype, deviations.dtype) == (np.dtype(np.int64), np.dtype(np.float64))


def test_no_rows_give_empty_columns_of_their_types():
    RatingFactory()
    columns = fetch_columns(_query(deviation__lt=0), TYPES)
    assert [(len(column), column.dtype) for column in columns] == [
        (0, np.dtype(np.int64)),
        (0, np.dtype(np.float64)),
        (0, np.dtype(np.float64)),
    ]
