"""The stats page's precomputed tables: percentiles, floors, recent activity, popularity
with its change from the period before, and how often the refresh runs."""

from __future__ import annotations

from datetime import timedelta

import pytest

from matches.models import SiteStatistic
from matches.services.refresh import refresh_derived_tables
from matches.tasks import refresh_site
from matches.views.statistics import every
from players.models import Character
from tests.factories import BASE_TIME, MatchFactory, PlayerFactory, RatingFactory, rate_match

pytestmark = pytest.mark.django_db

# Within the first hour after the factories' ratings last decayed: no decay yet.
NOW = BASE_TIME + timedelta(minutes=30)


def stored(key: str):
    return SiteStatistic.objects.get(key=key).data


def test_percentiles_are_the_ratings_at_the_top_percent_ranks(client):
    for n in range(20):
        RatingFactory(value=1000.0 + n)
    RatingFactory(value=3000.0, player__hidden=True)  # never ranked
    RatingFactory(value=2900.0, deviation=200.0)  # not precise enough to be ranked
    refresh_derived_tables(now=NOW)
    # 20 ranked: the top 1% and 5% are rank 1, 10% rank 2, 25% rank 5, 50% rank 10.
    assert stored("percentiles") == [
        {"top": 1, "rank": 1, "value": 1019.0},
        {"top": 5, "rank": 1, "value": 1019.0},
        {"top": 10, "rank": 2, "value": 1018.0},
        {"top": 25, "rank": 5, "value": 1015.0},
        {"top": 50, "rank": 10, "value": 1010.0},
    ]
    html = client.get("/stats").content.decode()
    row = '<tr><th scope="row">25%</th><td class="num">5</td><td class="num">1015</td></tr>'
    assert row in html


def test_rating_distribution_bins_are_evenly_spaced_in_rating(client):
    """Every bin from the lowest ranked rating's to the highest's, the empty ones at zero:
    a lone rating far above the rest is drawn apart from them, where its value is."""
    for value in (1510.0, 1520.0, 1560.0, 1720.0):
        RatingFactory(value=value)
    RatingFactory(value=2400.0, deviation=200.0)  # not ranked: not counted
    refresh_derived_tables(now=NOW)
    bins = stored("rating_distribution")["bins"]
    assert [(b["from"], b["count"]) for b in bins] == [
        (1500.0, 2), (1550.0, 1), (1600.0, 0), (1650.0, 0), (1700.0, 1)
    ]  # fmt: skip
    html = client.get("/stats").content.decode()
    assert "<title>1600 to 1650: 0 ratings</title>" in html
    assert "<title>1700 to 1750: 1 rating</title>" in html


def test_no_percentiles_without_ranked_ratings(client):
    refresh_derived_tables(now=NOW)
    assert stored("percentiles") == []
    assert "The rating it takes to be in the top" not in client.get("/stats").content.decode()


def test_floor_distribution_lists_every_floor_and_celestial(client):
    for floor in (3, 3, 99, None):
        PlayerFactory(floor=floor)
    PlayerFactory(floor=5, hidden=True)
    refresh_derived_tables(now=NOW)
    players = {row["floor"]: row["players"] for row in stored("floor_distribution")}
    assert list(players) == [*range(1, 11), 99]
    assert (players[3], players[99], players[5], players[1]) == (2, 1, 0, 0)
    html = client.get("/stats").content.decode()
    assert '<th scope="col" class="num">C</th></tr></thead>' in html
    assert "<title>Floor 3: 2 players</title>" in html
    assert "<title>Celestial: 1 player</title>" in html


def test_activity_counts_players_and_games_in_the_last_hour_day_and_week(client):
    long_ago = NOW - timedelta(days=30)
    ago = [timedelta(minutes=20), timedelta(hours=5), timedelta(days=3), timedelta(days=9)]
    for age in ago:
        a = PlayerFactory(last_seen=NOW - age)
        b = PlayerFactory(last_seen=long_ago)
        MatchFactory(player_a=a, player_b=b, played_at=NOW - age)
    hidden = PlayerFactory(last_seen=NOW - timedelta(minutes=1), hidden=True)
    idle = PlayerFactory(last_seen=long_ago)
    MatchFactory(player_a=hidden, player_b=idle, played_at=NOW - timedelta(minutes=1))
    later = PlayerFactory(last_seen=NOW + timedelta(minutes=5))  # after `now`: not counted
    MatchFactory(player_a=later, player_b=idle, played_at=NOW + timedelta(minutes=5))
    refresh_derived_tables(now=NOW)
    assert stored("activity") == {
        "hour": {"players": 1, "games": 1},
        "day": {"players": 2, "games": 2},
        "week": {"players": 3, "games": 3},
    }
    html = client.get("/stats").content.decode()
    assert '<tr><th scope="row">Week</th><td class="num">3</td><td class="num">3</td></tr>' in html
    one_game_days = [row["day"] for row in stored("games_per_day") if row["games"] == 1]
    assert one_game_days and f"<title>{one_game_days[0]}: 1 game</title>" in html


def rated_game(played_at, code_a: str, value_a: float, code_b: str, value_b: float, **kw):
    match = MatchFactory(
        played_at=played_at,
        character_a=Character.objects.get(code=code_a),
        character_b=Character.objects.get(code=code_b),
        **kw,
    )
    rate_match(match, value_a, value_b)


def test_popularity_is_the_latest_weeks_share_with_its_change_from_the_week_before(client):
    this_week, last_week = NOW - timedelta(days=2), NOW - timedelta(days=10)
    rated_game(this_week, "SO", 1500.0, "KY", 1500.0)
    rated_game(this_week + timedelta(minutes=1), "SO", 1500.0, "SO", 1450.0)
    rated_game(this_week + timedelta(minutes=2), "KY", 1850.0, "SO", 1850.0)
    rated_game(last_week, "KY", 1500.0, "KY", 1500.0)
    rated_game(NOW - timedelta(days=20), "MA", 1500.0, "MA", 1500.0)  # before both weeks
    rated_game(this_week, "MA", 1500.0, "MA", 1500.0, player_a=PlayerFactory(hidden=True))
    refresh_derived_tables(now=NOW)
    popularity = stored("popularity")
    assert popularity["period_days"] == 7
    rows = {row["character"]: row for row in popularity["rows"]}
    # This week: 1400-1600 sides SO, KY, SO, SO; 1800+ sides KY, SO. Last week: KY, KY.
    assert rows["SO"]["shares"]["all"] == pytest.approx(4 / 6)
    assert rows["SO"]["changes"]["all"] == pytest.approx(4 / 6)
    assert rows["KY"]["shares"]["1400"] == pytest.approx(1 / 4)
    assert rows["KY"]["changes"]["1400"] == pytest.approx(1 / 4 - 1)
    assert rows["SO"]["shares"]["1800"] == pytest.approx(1 / 2)
    assert rows["SO"]["changes"]["1800"] is None  # nothing to compare with
    assert rows["MA"]["shares"]["all"] == 0.0
    html = client.get("/stats").content.decode()
    assert '75.0% <small class="up">+75.0</small>' in html
    assert '25.0% <small class="down">\u221275.0</small>' in html
    assert "50.0%</td>" in html


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (3600.0, "every hour"),
        (900.0, "every 15 minutes"),
        (7200.0, "every 2 hours"),
        (86400.0, "every day"),
        (90.0, "every 90 seconds"),
    ],
)
def test_intervals_read_as_people_say_them(seconds, text):
    assert every(seconds) == text


def test_stats_page_tells_the_refresh_interval_in_use(client, settings):
    refresh_derived_tables(now=NOW)
    html = client.get("/stats").content.decode()
    assert ' UTC" data-local="datetime">' in html
    assert "</time>; refreshed every hour." in html
    schedule = dict(settings.CELERY_BEAT_SCHEDULE)
    schedule["refresh_statistics"] = {**schedule["refresh_statistics"], "schedule": 900.0}
    settings.CELERY_BEAT_SCHEDULE = schedule
    assert "refreshed every 15 minutes." in client.get("/stats").content.decode()


def test_beat_sends_the_refresh_under_the_name_it_was_first_registered_with(settings):
    # Beat's stored schedule and messages already queued in production carry this name.
    entry = settings.CELERY_BEAT_SCHEDULE["refresh_statistics"]
    assert entry["task"] == refresh_site.name == "matches.tasks.refresh_statistics"
