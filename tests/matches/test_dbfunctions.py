import itertools
import math
from datetime import UTC, datetime

import pytest
from django.db import connection
from django.db.models import FloatField, Value

from matches.dbfunctions import EpochSeconds, expected_sql, win_logit
from matches.models import Match
from matches.ratings.glicko import win_probability
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
DEVIATIONS = (25.0, 61.7, 200.0, 350.0)
GRID = [
    (value_a, deviation_a, value_b, deviation_b)
    for value_a, value_b in itertools.product(VALUES, repeat=2)
    for deviation_a, deviation_b in itertools.product(DEVIATIONS, repeat=2)
]


def logit(p: float) -> float:
    return math.log(p / (1.0 - p))


def test_the_win_logit_is_the_pure_win_probabilitys():
    MatchFactory()  # a row to compute on
    logits = (
        Match.objects.annotate(
            **{
                f"l{n}": win_logit(*(Value(number, FloatField()) for number in inputs))
                for n, inputs in enumerate(GRID)
            }
        )
        .values(*(f"l{n}" for n in range(len(GRID))))
        .get()
    )
    for n, inputs in enumerate(GRID):
        assert logits[f"l{n}"] == pytest.approx(
            logit(win_probability(*inputs)), rel=1e-9, abs=1e-12
        )


def test_the_expected_score_is_the_pure_modules():
    differences = [a - b for a, b in itertools.product(VALUES, repeat=2)] + [0.5, -7.25, 800.0]
    select = ", ".join(expected_sql("%s::float8") for _ in differences)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {select}", differences)
        shown = cursor.fetchone()
    for difference, value in zip(differences, shown, strict=True):
        assert value == pytest.approx(expected(difference), rel=1e-12)
