"""Migrations that change keys or fill columns by hand keep every row right, both ways."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import IntegrityError, connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE_KEYS = ("players", "0012_derived_foreign_keys_not_indexed")
KEYED = ("players", "0013_derived_rows_keyed_by_rating")
BYTEWISE = ("players", "0014_player_ids_compared_bytewise")
REPLAY_IDS_BEFORE = ("matches", "0006_match_sides_ordered_by_id")
REPLAY_IDS_BYTEWISE = ("matches", "0007_replay_ids_compared_bytewise")


def _migrate(target: tuple[str, str]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])


@pytest.fixture
def back_to_latest() -> Iterator[None]:
    yield
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def _rows(table: str, columns: str) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {columns} FROM {table} ORDER BY {columns}")
        return cursor.fetchall()


def _execute(statement: str, params: list | None = None) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


def test_snapshots_and_matchups_keyed_by_rating_keep_their_rows_both_ways(back_to_latest):
    _migrate(BEFORE_KEYS)
    _execute(
        "INSERT INTO players_ratingsnapshot (rating_id, day, value, deviation) "
        "VALUES (1, '2026-01-01', 1500.0, 300.0), (1, '2026-01-02', 1510.5, 290.0)"
    )
    _execute(
        "INSERT INTO players_playermatchup "
        "(rating_id, opponent_character_id, wins, losses, expected_wins, information) "
        "VALUES (1, 3, 4, 2, 3.5, 1.25)"
    )
    snapshots = _rows("players_ratingsnapshot", "rating_id, day, value, deviation")
    matchups = _rows(
        "players_playermatchup",
        "rating_id, opponent_character_id, wins, losses, expected_wins, information",
    )

    _migrate(KEYED)
    assert _rows("players_ratingsnapshot", "rating_id, day, value, deviation") == snapshots
    with pytest.raises(IntegrityError):
        _execute(
            "INSERT INTO players_ratingsnapshot (rating_id, day, value, deviation) "
            "VALUES (1, '2026-01-01', 1.0, 2.0)"
        )

    _migrate(BEFORE_KEYS)
    assert _rows("players_ratingsnapshot", "rating_id, day, value, deviation") == snapshots
    assert (
        _rows(
            "players_playermatchup",
            "rating_id, opponent_character_id, wins, losses, expected_wins, information",
        )
        == matchups
    )
    assert sorted(_rows("players_ratingsnapshot", "id")) == [(1,), (2,)]
    with pytest.raises(IntegrityError):
        _execute(
            "INSERT INTO players_playermatchup "
            "(rating_id, opponent_character_id, wins, losses, expected_wins, information) "
            "VALUES (1, 3, 0, 0, 0.0, 0.0)"
        )


def _collations() -> set[str | None]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT collation_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND (table_name, column_name) IN "
            "(('players_player', 'id'), ('players_playername', 'player_id'), "
            "('players_rating', 'player_id'), ('players_rating', 'best_win_opponent_id'), "
            "('matches_match', 'player_a_id'), ('matches_match', 'player_b_id'))"
        )
        return {collation for (collation,) in cursor.fetchall()}


def test_player_ids_and_every_column_naming_a_player_compare_bytewise(back_to_latest):
    _migrate(BYTEWISE)
    assert _collations() == {"C"}
    _migrate(KEYED)
    assert _collations() == {None}


def _replay_id_collation() -> str | None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT collation_name FROM information_schema.columns WHERE table_schema = "
            "current_schema() AND table_name = 'matches_match' AND column_name = "
            "'source_replay_id'"
        )
        return cursor.fetchone()[0]


def test_replay_ids_compare_bytewise(back_to_latest):
    _migrate(REPLAY_IDS_BYTEWISE)
    assert _replay_id_collation() == "C"
    _migrate(REPLAY_IDS_BEFORE)
    assert _replay_id_collation() is None


def _by_name(query: str) -> dict[str, object]:
    """A catalog query's (name, value) rows as a dict."""
    with connection.cursor() as cursor:
        cursor.execute(query)
        return dict(cursor.fetchall())


def _fill_settings() -> dict[str, object]:
    return _by_name(
        "SELECT relname, reloptions FROM pg_class "
        "WHERE relname IN ('players_player', 'players_playername')"
    )


def test_player_and_name_pages_leave_room_for_updates_and_back(back_to_latest):
    assert _fill_settings() == {
        "players_player": ["fillfactor=70"],
        "players_playername": ["fillfactor=70"],
    }
    _migrate(("players", "0016_ranked_index_holds_the_player"))
    assert _fill_settings() == {"players_player": None, "players_playername": None}


def _ranked_index_definitions() -> dict[str, object]:
    return _by_name(
        "SELECT indexname, indexdef FROM pg_indexes WHERE indexname IN "
        "('rating_ranked_idx', 'rating_char_ranked_idx')"
    )


def test_ranked_indexes_hold_the_ranking_rows_and_back(back_to_latest):
    held = _ranked_index_definitions()
    assert held["rating_ranked_idx"].endswith(
        "(value DESC, id) INCLUDE (player_id, deviation, wins, losses, character_id, "
        "confirmations) WHERE (deviation < (75.0)::double precision)"
    )
    assert held["rating_char_ranked_idx"].endswith(
        "(character_id, value DESC, id) INCLUDE (player_id, deviation, wins, losses, "
        "confirmations) WHERE (deviation < (75.0)::double precision)"
    )
    _migrate(("players", "0021_characters_as_data"))
    held = _ranked_index_definitions()
    assert held["rating_ranked_idx"].endswith(
        "(value DESC, id) INCLUDE (player_id, deviation, wins, losses, character_id) "
        "WHERE (deviation < (75.0)::double precision)"
    )
    assert held["rating_char_ranked_idx"].endswith(
        "(character_id, value DESC, id) INCLUDE (player_id, deviation, wins, losses) "
        "WHERE (deviation < (75.0)::double precision)"
    )
    _migrate(("players", "0017_players_leave_room_for_updates"))
    before = _ranked_index_definitions()
    assert before["rating_ranked_idx"].endswith(
        "(value DESC, id) INCLUDE (player_id) WHERE (deviation < (75.0)::double precision)"
    )
    assert before["rating_char_ranked_idx"].endswith(
        "(character_id, value DESC, id) INCLUDE (player_id) "
        "WHERE (deviation < (75.0)::double precision)"
    )


CHANCE_BEFORE = ("matches", "0009_flag_changes_recompute")
CHANCE_STORED = ("matches", "0010_match_rating_chance")


def test_games_rated_before_chances_were_stored_get_the_reference_chance(back_to_latest):
    """The backfill's SQL gives glicko.win_probability of the stored pre-game ratings (the
    reference numbers' 0.7212 among them), and the migration goes back."""
    from matches.ratings.glicko import win_probability

    _migrate(CHANCE_BEFORE)
    ratings = {1: (1700.0, 80.0, 1500.0, 200.0), 2: (1500.0, 350.0, 1500.0, 350.0),
               3: (2000.0, 30.0, 1400.0, 30.0), 4: (1200.0, 25.0, 2900.0, 40.0)}  # fmt: skip
    _execute(
        "INSERT INTO matches_matchrating (match_id, rated_at, counted, value_a, deviation_a, "
        "change_a, value_b, deviation_b, change_b) VALUES "
        + ", ".join(
            f"({n}, now(), true, {va}, {da}, 0, {vb}, {db}, 0)"
            for n, (va, da, vb, db) in ratings.items()
        )
    )
    _migrate(CHANCE_STORED)
    stored = dict(_rows("matches_matchrating", "match_id, chance_a"))
    for n, inputs in ratings.items():
        assert stored[n] == pytest.approx(win_probability(*inputs), rel=1e-12, abs=1e-300)
    assert stored[1] == pytest.approx(0.7212, abs=1e-4)
    _migrate(CHANCE_BEFORE)
    assert len(_rows("matches_matchrating", "match_id")) == len(ratings)
    _execute("DELETE FROM matches_matchrating")


PROPORTIONAL_BEFORE = ("matches", "0010_match_rating_chance")
PROPORTIONAL = ("matches", "0012_character_matchup_proportional_bracket")


def test_the_proportional_bracket_goes_back_without_its_rows(back_to_latest):
    """Its key does not fit the column of before: going back drops those rows, keeps the
    others."""
    _migrate(PROPORTIONAL)
    _execute(
        "INSERT INTO matches_charactermatchup (bracket, character_id, opponent_id, wins, "
        'losses, expected_wins, "offset", standard_error) VALUES '
        "('proportional', 1, 2, 3, 4, 3.5, -10.0, 30.0), ('top100', 1, 2, 3, 4, 3.5, -10.0, 30.0)"
    )
    _migrate(PROPORTIONAL_BEFORE)
    assert _rows("matches_charactermatchup", "bracket") == [("top100",)]


def test_confirmations_are_filled_from_the_stored_results_as_the_ledger_counts(
    back_to_latest, settings
):
    """matches 0016 fills the columns players 0023 adds from the stored results, as
    incremental rating counted them."""
    from matches.replays.readers import iter_replay_payloads
    from matches.services.file_import import file_import_source
    from matches.services.ingest import store_replays
    from matches.services.rating.incremental import rate_pending_matches
    from players.models import Rating
    from tests.factories import random_league

    settings.RANKED_MIN_OPPONENTS = 7  # of the league's seven others: some never all
    store_replays(source=file_import_source(), replays=iter_replay_payloads(random_league(600)))
    rate_pending_matches()
    columns = ("player_id", "character_id", "confirmations", "confirming_players")
    rated = sorted(Rating.objects.values_list(*columns))
    assert 7 in {row[2] for row in rated} and any(row[3] for row in rated)

    _migrate(("players", "0021_characters_as_data"))
    _migrate(("matches", "0016_ratings_confirmed_backfill"))

    assert sorted(Rating.objects.values_list(*columns)) == rated


NAME_KEY_BEFORE = ("players", "0023_ratings_confirmed_by_settled_opponents")
NAME_KEY_STORED = ("players", "0024_name_key_stored")
# Spaces of every kind, zero-width and bidirectional characters, case, an override, scripts.
TRICKY_NAMES = ["Trap Daisy", "trap\u200bdaisy", "\u202eniaM yK", "Кирилл Петров",
                "日本\u3000語", "a\tb\u00a0c", "\ufeffBom", "Straße"]  # fmt: skip


def _name_key_indexes() -> dict[str, object]:
    """The search indexes of player and past names: keys, shown-as keys."""
    return _by_name(
        "SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN "
        "('players_player', 'players_playername') AND indexname ~ '_(name|shown)_key_'"
    )


def test_names_get_their_stored_key_and_back(back_to_latest):
    """Names stored before 0024 get the key players_name_key gives them; going back
    leaves every name and 0019's indexes of the function as they were."""
    _migrate(NAME_KEY_BEFORE)
    before = _name_key_indexes()
    assert len(before) == 6
    assert "(players_name_key((name)::text) text_pattern_ops)" in before["player_name_key_idx"]
    _execute(
        "INSERT INTO players_player (id, name, platform, first_seen, last_seen, hidden, "
        "cheater, supporter) VALUES "
        + ", ".join("(%s, %s, 'pc', now(), now(), false, false, false)" for _ in TRICKY_NAMES),
        [value for n, name in enumerate(TRICKY_NAMES) for value in (str(n + 1), name)],
    )
    _execute(
        "INSERT INTO players_playername (player_id, name, first_seen, last_seen) "
        "SELECT id, 'old ' || name, now(), now() FROM players_player"
    )
    names = _rows("players_player", "id, name"), _rows("players_playername", "player_id, name")
    wanted = _rows("players_player", "id, players_name_key(name)")

    _migrate(NAME_KEY_STORED)
    assert _rows("players_player", "id, name_key") == wanted
    assert ("1", "TRAPDAISY") in wanted and ("2", "TRAPDAISY") in wanted
    for table in ("players_player", "players_playername"):
        assert _rows(table, "name_key = players_name_key(name)") == [(True,)] * len(TRICKY_NAMES)
    stored = _name_key_indexes()
    assert stored["player_name_key_trgm"].endswith("USING gin (name_key gin_trgm_ops)")
    assert stored["playername_name_key_idx"].endswith("(name_key text_pattern_ops)")
    assert stored["player_shown_key_idx"] == before["player_shown_key_idx"]

    _migrate(NAME_KEY_BEFORE)
    assert _name_key_indexes() == before
    assert (
        _rows("players_player", "id, name"),
        _rows("players_playername", "player_id, name"),
    ) == names
    _execute("DELETE FROM players_playername; DELETE FROM players_player")
