"""Seasons (README.md#seasons): the archive a season's end keeps never changes, and a
ladder lists only ratings with SEASON_MIN_GAMES counted games in the season."""

from __future__ import annotations

import random
from collections import Counter
from datetime import date, timedelta

import pytest
from django.db import transaction
from hypothesis import HealthCheck, event, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from matches.models import Match, Season, SeasonGames, SeasonStanding
from matches.selectors.seasons import OVERALL
from matches.services.flags import recompute_after_flag_changes, set_player_flags
from matches.services.rating.incremental import rate_pending_matches
from matches.services.rating.recompute import recompute_all_ratings
from matches.services.refresh import refresh_derived_tables
from matches.services.seasons import forget_season_games
from players import rules
from players.models import Player, Rating
from tests.factories import BASE_TIME, random_league, replay
from tests.matches.test_rating_pipeline import store

pytestmark = pytest.mark.django_db

DAY_ONE = BASE_TIME.date()  # random_league's first game; 40 games a day


def archive_bytes(client, season: Season) -> bytes:
    """The season's archived ladders as its pages and API answer them, every ladder."""
    ladders = SeasonStanding.objects.filter(season=season).values_list("ladder", flat=True)
    codes = {row.character.code for row in SeasonStanding.objects.filter(season=season)}
    parts = [client.get(f"/api/v1/seasons/{season.name}/").content]
    parts += [client.get(f"/api/v1/seasons/{season.name}/?character={c}").content for c in codes]
    parts.append(client.get(f"/seasons/{season.name}").content)
    rows = SeasonStanding.objects.filter(season=season, ladder__in=ladders).order_by("id")
    parts.append(repr(list(rows.values_list())).encode())
    return b"\n".join(parts)


def test_an_archive_is_the_same_bytes_after_a_recompute_a_refresh_and_a_flag_change(
    client, settings
):
    settings.SEASON_MIN_GAMES = 5
    store(random_league(600))  # about 15 days
    rate_pending_matches()
    season = Season.objects.create(name="s1", start=DAY_ONE, end=DAY_ONE + timedelta(days=7))
    after = BASE_TIME + timedelta(days=20)
    refresh_derived_tables(after)
    season.refresh_from_db()
    assert season.archived_at is not None
    archived = archive_bytes(client, season)
    leader = SeasonStanding.objects.get(season=season, ladder=OVERALL, rank=1)
    assert b"s1" in archived and leader.games >= 5

    recompute_all_ratings()
    refresh_derived_tables(after + timedelta(hours=1))
    assert archive_bytes(client, season) == archived

    # The leader is flagged and renamed: every ranking drops them, the archive does not.
    player = Player.objects.get(id=leader.player_id)
    player.name = "renamed"
    player.save()
    set_player_flags(player, cheater=True, by="test")
    recompute_after_flag_changes(after + timedelta(hours=2))
    refresh_derived_tables(after + timedelta(hours=3))
    assert not Rating.objects.filter(rules.ranked(), player=player).exists()
    assert archive_bytes(client, season) == archived


def test_the_live_ladder_follows_the_season_and_is_archived_at_its_end(settings):
    settings.SEASON_MIN_GAMES = 3
    store(random_league(400))
    rate_pending_matches()
    season = Season.objects.create(name="now", start=DAY_ONE, end=DAY_ONE + timedelta(days=30))
    refresh_derived_tables(BASE_TIME + timedelta(days=11))
    season.refresh_from_db()
    assert season.archived_at is None
    live = list(SeasonStanding.objects.filter(season=season, ladder=OVERALL).order_by("rank"))
    assert live and [row.rank for row in live] == list(range(1, len(live) + 1))
    assert [row.value for row in live] == sorted((row.value for row in live), reverse=True)
    refresh_derived_tables(BASE_TIME + timedelta(days=40))
    season.refresh_from_db()
    assert season.archived_at is not None


def independent_season_games(start: date, end: date) -> Counter:
    """Counted games per (player, character) played on the season's days, counted in Python."""
    games: Counter = Counter()
    for match in Match.objects.filter(rating__counted=True):
        if start <= match.played_at.date() <= end:
            games[(match.player_a_id, match.character_a_id)] += 1
            games[(match.player_b_id, match.character_b_id)] += 1
    return games


def small_league(games: int, players: int, characters: int, seed: int) -> list[dict]:
    """Games 30 minutes apart (48 a day) among a few players and characters, so that most
    ratings settle within days."""
    rng = random.Random(seed)
    ids = [str(100000000000000000 + n) for n in range(players)]
    codes = ["SO", "KY", "MA"][:characters]
    return [
        replay(
            n * 30,
            *rng.sample(ids, 2),
            winner=rng.choice([1, 2]),
            characters=(rng.choice(codes), rng.choice(codes)),
        )
        for n in range(games)
    ]


@hypothesis_settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 10_000),
    games=st.integers(20, 300),
    players=st.integers(3, 6),
    characters=st.integers(1, 3),
    min_games=st.integers(1, 30),
    first=st.integers(0, 4),
    days=st.integers(0, 4),
    ended=st.booleans(),
)
def test_a_ladder_lists_exactly_the_settled_ratings_with_enough_games_in_the_season(
    settings, seed, games, players, characters, min_games, first, days, ended
):
    """Ended: the archive (the ratings at the season's end); else the live ladder of a
    season still under way after the league's last game (the ratings of now)."""
    settings.SEASON_MIN_GAMES = min_games
    with transaction.atomic():
        store(small_league(games, players, characters, seed))
        rate_pending_matches()
        start = DAY_ONE + timedelta(days=first)
        end = start + timedelta(days=days if ended else 60)
        season = Season.objects.create(name="p", start=start, end=end)
        refresh_derived_tables(BASE_TIME + timedelta(days=30))
        season.refresh_from_db()
        assert (season.archived_at is not None) == ended
        in_season = independent_season_games(start, end)
        ladders = SeasonStanding.objects.filter(season=season)
        overall = list(ladders.filter(ladder=OVERALL).order_by("rank"))
        listed = {(row.player_id, row.character_id): row for row in overall}
        assert len(listed) == len(overall)  # each rating once
        # A character's ladder is the overall one's rows of that character, in order.
        for character_id in {row.character_id for row in overall}:
            own = ladders.filter(ladder=character_id)
            assert [(r.player_id, r.value) for r in own.order_by("rank")] == [
                (r.player_id, r.value) for r in overall if r.character_id == character_id
            ]
        for key, row in listed.items():
            assert row.games == in_season[key] >= min_games
        event(f"listed: {min(len(listed), 3)}+")
        if not ended:  # live: the ratings of now, every eligible one listed
            eligible = {
                (r.player_id, r.character_id)
                for r in Rating.objects.filter(rules.ranked())
                if in_season[(r.player_id, r.character_id)] >= min_games
            }
            assert set(listed) == eligible
        transaction.set_rollback(True)


def kept_counts(season: Season) -> Counter:
    rows = SeasonGames.objects.filter(season=season)
    return Counter(
        {(p, c): games for p, c, games in rows.values_list("player", "character", "games")}
    )


def standings() -> list[tuple]:
    rows = SeasonStanding.objects.order_by("season", "ladder", "rank")
    return list(rows.values_list("season", "ladder", "rank", "player", "name", "character",
                                 "value", "deviation", "games"))  # fmt: skip


def test_kept_season_counts_follow_each_batch_and_equal_a_count_from_scratch(settings):
    """Three seasons fed in batches (late games of a live season among them), with a
    recompute before the last: after each refresh the kept counts of every season not
    archived are its counted games counted anew, an archive's games are those, and the
    ladders are those drawn from counts counted afresh."""
    settings.SEASON_MIN_GAMES = 3
    day = lambda days: BASE_TIME + timedelta(days=days)  # noqa: E731
    for n, (a, b) in enumerate([(0, 2), (3, 6), (7, 60)]):
        Season.objects.create(
            name=f"s{n}", start=DAY_ONE + timedelta(days=a), end=DAY_ONE + timedelta(days=b)
        )
    league = random_league(480)  # 40 games a day
    # Played in s2 after games already rated, stored with the next batch.
    late = [
        replay(900_000 + k, "100000000000000001", "100000000000000002", played_at=day(4.1))
        for k in range(12)
    ]
    batches = [
        (league[:195], day(5)),
        (league[195:300] + late, day(8)),
        (league[300:380], day(10)),
        (league[380:], day(13)),
    ]
    for number, (batch, now) in enumerate(batches):
        if number == 3:
            recompute_all_ratings()
            assert not SeasonGames.objects.exists()
        store(batch)
        rate_pending_matches()
        refresh_derived_tables(now)
        for season in Season.objects.all():
            counted = +independent_season_games(season.start, season.end)
            if season.archived_at is None:
                assert kept_counts(season) == counted
            else:  # archived from the kept counts, which are then let go
                assert not kept_counts(season)
                rows = SeasonStanding.objects.filter(season=season)
                assert all(row.games == counted[(row.player_id, row.character_id)] for row in rows)
        kept = standings()
        with transaction.atomic():  # the same refresh from counts counted afresh, undone
            forget_season_games()
            refresh_derived_tables(now)
            assert standings() == kept
            transaction.set_rollback(True)
    assert [s.archived_at is not None for s in Season.objects.order_by("start")] == [
        True, True, False
    ]  # fmt: skip
    assert SeasonStanding.objects.filter(season__name="s1").exists()


def test_a_season_whose_days_change_in_the_admin_is_counted_afresh(admin_client, settings):
    settings.SEASON_MIN_GAMES = 3
    store(random_league(400))  # 10 days
    rate_pending_matches()
    season = Season.objects.create(name="now", start=DAY_ONE, end=DAY_ONE + timedelta(days=30))
    refresh_derived_tables(BASE_TIME + timedelta(days=11))
    assert kept_counts(season) == +independent_season_games(season.start, season.end)
    start = DAY_ONE + timedelta(days=4)
    form = {"name": "now", "start": start.isoformat(), "end": season.end.isoformat()}
    response = admin_client.post(f"/admin/matches/season/{season.pk}/change/", form)
    assert response.status_code == 302
    refresh_derived_tables(BASE_TIME + timedelta(days=11, hours=1))
    narrower = +independent_season_games(start, season.end)
    assert kept_counts(season) == narrower != independent_season_games(DAY_ONE, season.end)
    listed = SeasonStanding.objects.filter(season=season, ladder=OVERALL)
    assert listed and all(
        row.games == narrower[(row.player_id, row.character_id)] for row in listed
    )
