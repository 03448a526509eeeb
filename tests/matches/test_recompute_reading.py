"""The compiled recompute's read of every stored match as arrays
(services.rating.recompute_storage)."""

from __future__ import annotations

import numpy as np
import pytest
from django.db import connection, transaction

from matches.models import Match
from matches.services import binary_copy
from matches.services.character_matchups import rebuild_character_matchups
from matches.services.rating import recompute_storage
from matches.services.rating.decay import decay_all_ratings
from matches.services.rating.incremental import rate_pending_matches
from matches.services.rating.recompute import recompute_all_ratings
from players.models import Rating
from tests.factories import random_league
from tests.matches.test_rating_pipeline import (
    RECOMPUTED_AT,
    assert_same_state,
    state,
    store,
)

pytestmark = pytest.mark.django_db


def test_binary_arrays_decode_to_the_values_postgresql_holds():
    values = {
        20: "ARRAY[-9223372036854775808, 0, 42]::bigint[]",
        701: "ARRAY[-1.5, 0.1, 1e300]::float8[]",
        21: "ARRAY[-32768, 7, 32767]::smallint[]",
        16: "ARRAY[true, false, true]",
    }
    expected = {
        20: [-(2**63), 0, 42],
        701: [-1.5, 0.1, 1e300],
        21: [-32768, 7, 32767],
        16: [True, False, True],
    }
    with connection.cursor() as cursor:
        for oid, array in values.items():
            cursor.execute(f"SELECT array_send({array}), array_send('{{}}'::int8[])")
            data, empty = cursor.fetchone()
            assert binary_copy.decode_array(bytes(data), oid).tolist() == expected[oid]
            assert len(binary_copy.decode_array(bytes(empty), 20)) == 0


def test_the_history_is_in_time_order_with_ratings_numbered_by_first_game():
    store(random_league(80))
    history = recompute_storage.read_history()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, player_a_id, character_a_id, player_b_id, character_b_id "
            "FROM matches_match ORDER BY played_at, id"
        )
        rows = cursor.fetchall()
    assert history.match_id.tolist() == [row[0] for row in rows]
    assert (np.diff(history.played_at) >= 0).all()
    numbers: dict[tuple[str, int], int] = {}
    for _, player_a, character_a, player_b, character_b in rows:
        for key in ((player_a, character_a), (player_b, character_b)):
            numbers.setdefault(key, len(numbers))
    keys = [
        (p.decode(), c) for p, c in zip(history.player, history.character.tolist(), strict=True)
    ]
    assert keys == list(numbers)
    assert history.rating_a.tolist() == [numbers[(r[1], r[2])] for r in rows]
    assert history.rating_b.tolist() == [numbers[(r[3], r[4])] for r in rows]


def test_a_hash_shared_by_two_players_is_read_again_under_another_seed(monkeypatch):
    store(random_league(120))
    rate_pending_matches()
    decay_all_ratings(RECOMPUTED_AT)
    rebuild_character_matchups()
    incremental = state()
    real_players = recompute_storage._players
    seeds = []

    def colliding_at_first(seed):
        seeds.append(seed)
        players, hashes = real_players(seed)
        if seed == 0:
            hashes[1] = hashes[0]
        return players, hashes

    monkeypatch.setattr(recompute_storage, "_players", colliding_at_first)
    recompute_all_ratings(chunk_size=50, now=RECOMPUTED_AT)
    assert seeds == [0, 1]
    assert_same_state(incremental, state())


def test_a_match_naming_no_stored_player_fails_the_recompute_and_keeps_the_ratings():
    store(random_league(40))
    rate_pending_matches()
    before = sorted(Rating.objects.values_list("id", "value", "deviation"))
    # Matches name players without a database constraint: a bad write could do this.
    Match.objects.filter(id=Match.objects.order_by("id").values("id")[:1]).update(player_a_id="404")
    with pytest.raises(RuntimeError, match="missing from the players table"):
        recompute_all_ratings()
    assert sorted(Rating.objects.values_list("id", "value", "deviation")) == before


# The other connections see committed matches only.
@pytest.mark.django_db(transaction=True)
def test_the_history_read_on_several_connections_is_the_one_read_on_this_one(monkeypatch):
    store(random_league(200))
    monkeypatch.setattr(
        recompute_storage, "_READ_BLOCKS", 1
    )  # a query a page: several for each reader
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_relation_size('matches_match') / 8192")
        assert cursor.fetchone()[0] >= 4
    with transaction.atomic():
        alone = recompute_storage.read_history()
        spread = recompute_storage.read_history(readers=2)
    assert len(alone) == 200
    for name in recompute_storage.History.__dataclass_fields__:
        assert np.array_equal(getattr(spread, name), getattr(alone, name)), name


@pytest.mark.django_db(transaction=True)
def test_a_recompute_in_its_own_transaction_reads_on_two_connections_and_equals_incremental(
    monkeypatch,
):
    store(random_league(120))
    rate_pending_matches(batch_size=5)
    decay_all_ratings(RECOMPUTED_AT)
    rebuild_character_matchups()
    incremental = state()
    monkeypatch.setattr(recompute_storage, "_READ_BLOCKS", 1)
    asked = []
    real_read_history = recompute_storage.read_history

    def counted_read_history(readers=1):
        asked.append(readers)
        return real_read_history(readers)

    monkeypatch.setattr(recompute_storage, "read_history", counted_read_history)
    recompute_all_ratings(chunk_size=50, now=RECOMPUTED_AT)
    assert asked == [2]
    assert_same_state(incremental, state())
