from datetime import UTC, datetime

import pytest

from matches.dbfunctions import EpochSeconds
from matches.models import Match
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
