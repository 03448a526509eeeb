import itertools
from datetime import UTC, datetime

import numpy as np
import pytest
from django.db import connection
from django.db.models import FloatField, Value

from matches.dbfunctions import EpochSeconds, chance_logit, expected_sql
from matches.models import Match
from matches.ratings.calibration import MAX_LOGIT, chance_logits
from matches.ratings.matchup_offset import expected
from tests.factories import MatchFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "moment",
    [
        datetime(2026, 11, 21, 14, 3, 11, tzinfo=UTC),
        datetime(2026, 11, 21, 14, 3, 11, 250_001, tzinfo=UTC),
        datetime(1999, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC),
    ],
)
def test_epoch_seconds_match_python(moment):
    MatchFactory(played_at=moment)
    epoch = (
        Match.objects.annotate(epoch=EpochSeconds("played_at"))
        .values_list("epoch", flat=True)
        .get()
    )
    assert epoch == pytest.approx(moment.timestamp(), abs=1e-6)


VALUES = (0.0, 1234.5, 1500.0, 1987.25, 3100.0)
# Chances as the rating ledgers store them: certain ones included (a 3100 against a 0).
CHANCES = (0.0, 1e-320, 1e-9, 0.25, 0.5, 0.7212, 1.0 - 1e-9, 1.0)


def test_the_chance_logit_is_the_pure_modules():
    MatchFactory()  # a row to compute on
    logits = (
        Match.objects.annotate(
            **{f"l{n}": chance_logit(Value(p, FloatField())) for n, p in enumerate(CHANCES)}
        )
        .values(*(f"l{n}" for n in range(len(CHANCES))))
        .get()
    )
    expected_logits = chance_logits(np.array(CHANCES))
    assert expected_logits[0] == -MAX_LOGIT and expected_logits[-1] == MAX_LOGIT
    for n, pure in enumerate(expected_logits):
        assert logits[f"l{n}"] == pytest.approx(pure, rel=1e-9, abs=1e-12)


def test_the_expected_score_is_the_pure_modules():
    differences = [a - b for a, b in itertools.product(VALUES, repeat=2)] + [0.5, -7.25, 800.0]
    select = ", ".join(expected_sql("%s::float8") for _ in differences)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {select}", differences)
        shown = cursor.fetchone()
    for difference, value in zip(differences, shown, strict=True):
        assert value == pytest.approx(expected(difference), rel=1e-12)
