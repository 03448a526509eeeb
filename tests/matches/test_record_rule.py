"""Records keep their rule through the database: after live rating and again after a
recompute, every stored peak and best win is the highest one a settled rating set, read
back from the games stored with their ratings (docs/rating-model.md#wins-peaks-and-best-wins).
tests/ratings/test_records.py holds the two ledgers to the rule game by game."""

from __future__ import annotations

import math
from datetime import timedelta

import hypothesis
import pytest
from hypothesis import HealthCheck, example, given
from hypothesis import strategies as st

from matches.models import Match, MatchRating
from matches.params import glicko_params
from matches.ratings.glicko import rate_game
from matches.services.rating.incremental import rate_pending_matches
from matches.services.rating.recompute import recompute_all_ratings
from players.models import Rating
from tests.factories import BASE_TIME, replay
from tests.matches.test_hostile_properties import rolled_back
from tests.matches.test_rating_pipeline import store

pytestmark = pytest.mark.django_db

PLAYERS = [str(100000000000000001 + n) for n in range(5)]
# (first player, offset to the second, their characters, winner, minutes since the last game)
GAME = st.tuples(
    st.integers(0, 4),
    st.integers(1, 4),
    st.sampled_from(["SO", "KY"]),
    st.sampled_from(["SO", "KY"]),
    st.sampled_from([1, 2]),
    st.integers(1, 240),
)
# With the threshold at deviation 270, two players settle against each other (350 → 290
# → 260), then a newcomer beats one of them on its first game and stays unsettled (350 →
# 278): the case a player found, where the old rule gave the newcomer a best win.
NEWCOMER = [(0, 1, "SO", "SO", 1, 1), (0, 1, "SO", "SO", 2, 1), (2, 3, "SO", "SO", 1, 1)]


def replays(steps) -> list[dict]:
    out, minute = [], 0
    for first, offset, code_1, code_2, winner, gap in steps:
        minute += gap
        second = (first + offset) % len(PLAYERS)
        out.append(
            replay(
                minute, PLAYERS[first], PLAYERS[second], winner=winner, characters=(code_1, code_2)
            )
        )
    return out


def records_by_the_rule(low: float) -> dict[tuple[str, int], tuple[float | None, float | None]]:
    """Each rating's (peak, best win) as the rule defines them, from the stored games: the
    highest post-game value while its own ± was below `low`, and the highest pre-game value
    of an opponent it beat while both its own post-game ± and the opponent's were below."""
    params = glicko_params()
    records: dict[tuple[str, int], tuple[float | None, float | None]] = {}

    def raise_to(key, peak: float | None = None, best: float | None = None) -> None:
        old_peak, old_best = records.get(key, (None, None))
        records[key] = (
            old_peak if peak is None else max(peak, old_peak or -math.inf),
            old_best if best is None else max(best, old_best or -math.inf),
        )

    games = (
        MatchRating.objects.filter(counted=True)
        .order_by("match__played_at", "match_id")
        .values_list(
            "match__player_a_id",
            "match__character_a_id",
            "match__player_b_id",
            "match__character_b_id",
            "match__winner",
            "value_a",
            "deviation_a",
            "change_a",
            "value_b",
            "deviation_b",
            "change_b",
        )
    )
    for pa, ca, pb, cb, winner, va, da, change_a, vb, db, change_b in games:
        a_won = winner == Match.Winner.A
        na, nda, nb, ndb = rate_game(va, da, vb, db, 1.0 if a_won else 0.0, params)
        # The stored changes are this update's: the post-game ± below are the ledgers' own.
        assert (na - va, nb - vb) == pytest.approx((change_a, change_b), abs=1e-9)
        for key, after, after_deviation in (((pa, ca), na, nda), ((pb, cb), nb, ndb)):
            raise_to(key, peak=after if after_deviation < low else None)
        winner_key, winner_deviation, loser_value, loser_deviation = (
            ((pa, ca), nda, vb, db) if a_won else ((pb, cb), ndb, va, da)
        )
        if winner_deviation < low and loser_deviation < low:
            raise_to(winner_key, best=loser_value)
    return records


def assert_records_keep_their_rule(low: float) -> None:
    expected = records_by_the_rule(low)
    for rating in Rating.objects.all():
        peak, best = expected.get((rating.player_id, rating.character_id), (None, None))
        assert rating.peak_value == (peak if peak is None else pytest.approx(peak, abs=1e-9))
        assert rating.best_win_value == (best if best is None else pytest.approx(best, abs=1e-9))
        if peak is not None:
            assert rating.peak_deviation < low
        if best is not None:
            assert rating.best_win_deviation < low


@hypothesis.settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    steps=st.lists(GAME, min_size=1, max_size=50),
    low=st.sampled_from([75.0, 150.0, 270.0]),
    batch_size=st.sampled_from([1, 7, 1000]),
)
@example(steps=NEWCOMER, low=270.0, batch_size=1000)
def test_no_record_is_set_while_unsettled_live_or_recomputed(steps, low, batch_size, settings):
    settings.RATING_LOW_DEVIATION = low
    with rolled_back():
        store(replays(steps))
        rate_pending_matches(batch_size=batch_size)
        assert_records_keep_their_rule(low)
        recompute_all_ratings(now=BASE_TIME + timedelta(days=30))
        assert_records_keep_their_rule(low)
