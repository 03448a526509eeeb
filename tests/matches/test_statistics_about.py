"""Statistics, the about page, the 404 page and the generation-keyed page cache."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from matches.models import SiteStatistic
from matches.params import glicko_params
from matches.ratings.glicko import chance, win_probability
from matches.services.refresh import refresh_derived_tables
from players.models import Player, Rating
from players.selectors.rankings import ranked_ratings
from tests.factories import replay, store_calibration
from tests.fixtures.league import rate_replays
from tests.fixtures.pages import QUERY_LIMIT
from web.generation import bump_generation

pytestmark = pytest.mark.django_db

STATISTICS = {
    "totals": {
        "games": 1234567,
        "players": 4321,
        "ratings": 6000,
        "ranked": 2500,
        "games_24h": 8765,
    },
    "games_per_day": [{"day": f"2026-10-{d:02d}", "games": 100 * d} for d in range(1, 31)],
    "rating_distribution": {
        "bin_width": 50,
        "bins": [
            {"from": 1000.0 + 50 * i, "to": 1050.0 + 50 * i, "count": 10 + i} for i in range(20)
        ],
    },
    "floor_distribution": [{"floor": f, "players": 10 * f} for f in (*range(1, 11), 99)],
    "popularity": {
        "brackets": [{"key": "all", "label": "All"}, {"key": "1600", "label": "1600-1800"}],
        "rows": [
            {"character": "SO", "name": "Sol", "shares": {"all": 0.0812, "1600": 0.1}},
            {"character": "KY", "name": "Ky", "shares": {"all": 0.05, "1600": 0.0}},
        ],
    },
}


def test_stats_page_reads_the_precomputed_rows(client, db, django_assert_max_num_queries):
    for key, data in STATISTICS.items():
        SiteStatistic.objects.create(key=key, data=data, computed_at=timezone.now())
    with django_assert_max_num_queries(QUERY_LIMIT):
        html = client.get("/stats").content.decode()
    for figure in ("1,234,567", "8,765", "4,321", "6,000", "2,500"):
        assert figure in html
    charts = dict(re.findall(r'<svg class="chart".*? id="([a-z-]+)">(.*?)</svg>', html, re.S))
    assert charts.keys() == {"games-per-day", "rating-distribution", "floor-distribution"}
    assert charts["games-per-day"].count('class="chart-bar"') == 30
    assert charts["rating-distribution"].count('class="chart-bar"') == 20
    assert "<title>Celestial: 990 players</title>" in charts["floor-distribution"]
    assert "<title>2026-10-30: 3,000 games</title>" in charts["games-per-day"]
    assert '<td class="num" data-sort="0.0812">8.1%</td>' in html


def test_stats_page_before_the_first_refresh(client, db):
    html = client.get("/stats").content.decode()
    assert "have not been computed yet" in html
    assert "No data yet." in html


def test_stats_page_with_a_real_refresh(client, league):
    html = client.get("/stats").content.decode()
    games = SiteStatistic.objects.get(key="totals").data["games"]
    assert games == 3000
    assert "3,000" in html


def test_about_explains_with_the_settings_in_force(client, db, settings):
    html = client.get("/about").content.decode()
    # ±100 (deviation 50) idle 30 days: ±194 with the reference c = 3.1
    # (docs/rating-model.md#reference-numbers); computed from the settings.
    idle = 2 * math.sqrt(50**2 + 720 * settings.RATING_DECAY_CONSTANT**2)
    assert f"comes back at about ±{math.floor(idle)}" in html  # rounded down, as every ±
    assert "below 150" in html
    assert "1500 ±700" in html
    settings.RATING_DECAY_CONSTANT = 6.2
    assert "comes back at about ±347" in client.get("/about").content.decode()


def test_about_explains_the_tiers_in_force(client, db, settings):
    html = client.get("/about").content.decode()
    rows = re.findall(r'<tr><th scope="row">(\w+)</th><td>([^<]*)</td></tr>', html)
    assert rows == [
        ("Bronze", "under 1400"),
        ("Silver", "1400 to under 1600"),
        ("Gold", "1600 to under 1800"),
        ("Platinum", "1800 to under 2000"),
        ("Diamond", "2000 to under 2200"),
        ("Master", "2200 and over"),
    ]
    assert "It is shown once the ± is below 150, as for a rank" in html
    settings.RATING_TIERS = ["0:Rookie", "1550.5:Pro"]
    html = client.get("/about").content.decode()
    rows = re.findall(r'<tr><th scope="row">(\w+)</th><td>([^<]*)</td></tr>', html)
    assert rows == [("Rookie", "under 1550.5"), ("Pro", "1550.5 and over")]
    settings.RATING_TIERS = ["off"]
    assert 'id="tiers"' not in client.get("/about").content.decode()


def test_about_states_the_counting_margins_plainly(client, db):
    html = client.get("/about").content.decode()
    assert "had a chance of 95.5% or more, or 4.5% or less (the chance a match history" in html
    assert "(or of" not in html


def test_about_gives_chances_as_the_calculator_and_the_histories_show_them(client, db):
    """The about page's example chance is the one the calculator shows for the same ratings
    (the one-chance model, whatever calibration was fitted), and the counting margins are
    where a history's shown chances put a lopsided game."""
    store_calibration(2.0)
    html = client.get("/about").content.decode()
    gap = re.search(r"a 200-point gap is about (\d+)%", html)[1]
    calculator = client.get(
        "/calculator?a-rating=1700&a-uncertainty=100&b-rating=1500&b-uncertainty=100"
    ).content.decode()
    shown = re.search(r'<strong data-out="probability">([\d.]+)%</strong>', calculator)[1]
    params = glicko_params()
    assert params.one_chance and params.update_damping > 0
    assert gap == f"{float(shown):.0f}" == f"{100 * chance(1700, 50, 1500, 50, params):.0f}"
    assert f"{100 * chance(1700, 50, 1500, 50, params):.0f}" != (
        f"{100 * win_probability(1700, 50, 1500, 50):.0f}"
    )
    assert "had a chance of 95.5% or more, or 4.5% or less" in html
    assert 'id="one-chance"' in html


def test_unknown_address_gets_the_friendly_404(client, db):
    response = client.get("/no/such/page")
    assert response.status_code == 404
    html = response.content.decode()
    assert "There is nothing at this address." in html
    assert "Resolver404" not in html


def test_pages_are_cached_until_the_generation_changes(client, league, django_assert_num_queries):
    first = client.get("/").content
    with django_assert_num_queries(0):
        assert client.get("/").content == first
    Rating.objects.filter(id=ranked_ratings().first().id).update(wins=9999)
    won = 'data-sort="9999">9,999\u2013'.encode()  # its W-L cell
    with django_assert_num_queries(0):
        assert won not in client.get("/").content
    bump_generation()
    assert won in client.get("/").content


def test_redirects_are_cached_too_but_not_errors(client, league, django_assert_num_queries):
    rating = ranked_ratings().first()
    first = client.get(f"/player/{rating.player_id}")
    assert first.status_code == 302
    with django_assert_num_queries(0):
        again = client.get(f"/player/{rating.player_id}")
    assert (again.status_code, again["Location"]) == (302, first["Location"])
    assert client.get("/player/999").status_code == 404
    with django_assert_num_queries(1):
        assert client.get("/player/999").status_code == 404


def test_the_total_counts_games_older_than_the_chart_and_neither_counts_hidden_players(db):
    now = datetime(2026, 11, 20, 15, 0, tzinfo=UTC)
    rate_replays(
        [
            replay(1, "1" * 18, "2" * 18, played_at=now - timedelta(days=200)),
            replay(2, "1" * 18, "2" * 18, played_at=now - timedelta(days=1)),
            replay(3, "3" * 18, "4" * 18, played_at=now - timedelta(days=1)),
        ]
    )
    Player.objects.filter(id="4" * 18).update(hidden=True)
    refresh_derived_tables(now=now)
    stored = {row.key: row.data for row in SiteStatistic.objects.all()}
    assert stored["totals"]["games"] == 2
    assert stored["totals"]["games_24h"] == 1
    assert stored["games_per_day"] == [
        {"day": "2026-11-19", "games": 1},
        {"day": "2026-11-20", "games": 0},
    ]


def test_games_per_day_run_up_to_today_with_quiet_days_at_zero(db):
    played = datetime(2026, 11, 20, 15, 0, tzinfo=UTC)
    rate_replays([replay(1, "1" * 18, "2" * 18, played_at=played)])
    refresh_derived_tables(now=played + timedelta(days=3))
    per_day = SiteStatistic.objects.get(key="games_per_day").data
    assert per_day == [
        {"day": "2026-11-20", "games": 1},
        {"day": "2026-11-21", "games": 0},
        {"day": "2026-11-22", "games": 0},
        {"day": "2026-11-23", "games": 0},
    ]
