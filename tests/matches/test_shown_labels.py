"""Labels from the shown value, reasons that are true (issue 28, item 5): a tier is the
tier of the number beside it, an idle rating says it is idle, one rounding rule for sets
and games, one ± text for the table and the chart, counts with separators and from one
moment."""

from __future__ import annotations

import math
import re
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from matches.models import Match, MatchRating, SiteStatistic
from matches.params import glicko_params
from matches.ratings.settling import deviation_after_last_game, games_to_settle
from matches.services import statistics
from matches.services.statistics import recompute_site_statistics
from players.models import Character, Player, Rating, RatingSnapshot
from tests.factories import BASE_TIME, PlayerFactory, RatingFactory, replay
from tests.fixtures.league import rate_replays

# Numbers of the reference formulas (the one-chance model: tests/matches/test_one_chance.py).
pytestmark = pytest.mark.usefixtures("reference_formulas")


A, B = "100000000000000001", "100000000000000002"


@pytest.mark.django_db
def test_a_rating_shown_as_1800_is_platinum_on_the_rankings_and_its_profile(client):
    """Rankings row #19 read "1800 ±123 Gold" for a value of 1799.95."""
    rating = RatingFactory(value=1799.95, deviation=61.6)
    row = client.get("/").content.decode()
    assert '1800 ±123 <span class="tier">Platinum</span>' in row
    profile = client.get(f"/player/{rating.player_id}/SO").content.decode()
    assert '<p class="big">1800 ±123 <span class="tier">Platinum</span></p>' in profile
    assert 'Sol <span class="muted">1800</span>' in profile


def _day(moment) -> str:
    """The day as the profile names it: 'Nov 1', with the year when not this year's."""
    day = f"{moment:%b} {moment.day}"
    return day if moment.year == timezone.localdate().year else f"{day}, {moment.year}"


def _unranked(client, rating: Rating) -> str:
    html = client.get(f"/player/{rating.player_id}/SO").content.decode()
    return re.search(r"Unranked: (.*?)\.</p>", html).group(1)


@pytest.mark.django_db
def test_an_idle_rating_says_it_is_idle_and_how_many_games_bring_it_back(client):
    """Its last game left it at ±140 (settled); 524 hours of decay since have grown it to
    ±158: it is idle, not short of games, and one game is not enough to rank it again."""
    params = glicko_params()
    hours = 524
    deviation = math.sqrt(70.0**2 + hours * params.decay_constant**2)
    rating = RatingFactory(
        deviation=deviation,
        last_played_at=BASE_TIME,
        last_decay_at=BASE_TIME + timedelta(hours=hours),
    )
    assert _unranked(client, rating) == (
        f"idle since {_day(BASE_TIME)}: ranked again in about 3 more games against settled "
        "players of your level"
    )


@pytest.mark.django_db
def test_a_rating_short_of_games_says_so(client):
    """The same ±158, but its last game left it there: it needs games, not a return."""
    rating = RatingFactory(deviation=79.0, last_played_at=BASE_TIME, last_decay_at=BASE_TIME)
    assert _unranked(client, rating) == (
        "too few games yet (±158 after 20 games, ranks need ± below 150): ranked in about 3 "
        "more games against settled players of your level"
    )


def test_the_games_that_settle_a_rating_settle_it():
    """What the texts promise: after games_to_settle games against a settled equal, the
    deviation is below the limit, and one game fewer is not."""
    from matches.ratings.glicko import update

    params = glicko_params()
    for deviation in (75.5, 79.0, 100.0, 200.0, 349.0):
        games = games_to_settle(deviation, params)
        widths = [deviation]
        for _ in range(games):
            widths.append(update(1500, widths[-1], 1500, params.low_deviation, 0.0, params)[1])
        assert widths[-1] < params.low_deviation <= widths[-2]
    hour = params.decay_period_seconds
    # A game 10 minutes into a period, two periods of decay since.
    last_played, last_decay = 600.0, 3 * hour
    decayed = math.sqrt(70.0**2 + 3 * params.decay_constant**2)
    assert deviation_after_last_game(decayed, last_decay, last_played, params) == (
        pytest.approx(70.0)
    )
    assert deviation_after_last_game(params.maximum_deviation, last_decay, 0, params) is None


def _set_changes(client, changes: list[float]) -> str:
    """The profile's history after a set against B with these changes, game by game."""
    rate_replays([replay(n, A, B) for n in range(1, len(changes) + 1)])
    for match, change in zip(Match.objects.order_by("played_at"), changes, strict=True):
        MatchRating.objects.filter(match=match).update(change_a=change, counted=True)
    return client.get(f"/player/{A}/SO").content.decode()


@pytest.mark.django_db
def test_a_set_that_lost_a_fifth_of_a_point_reads_minus_0_2_in_red(client):
    """A set that lost 0.2 showed a red "0": sets now round as games do (one decimal)."""
    html = _set_changes(client, [0.3, -0.5])
    # The set's row (its change opens on what the set expected: a <details>).
    assert re.search(r'<td class="num down">(<[^>]+>)*\u22120\.2<', html)
    assert '<td class="num up">+0.3</td>' in html
    assert '<td class="num down">\u22120.5</td>' in html


@pytest.mark.django_db
def test_a_change_that_reads_0_0_is_neither_up_nor_down(client):
    """+0.04 and -0.03 (a set of +0.01) were a green "0.0", a red "0.0" and a green "0"."""
    html = _set_changes(client, [0.04, -0.03])
    assert html.count('<td class="num ">0.0</td>') == 2  # the two games
    assert re.search(r'<td class="num ">(<[^>]+>)*0\.0<', html.split('class="set"')[1])
    assert not re.search(r'class="num (up|down)">[^<]*0\.0', html)


@pytest.mark.django_db
def test_the_chart_writes_the_same_plus_minus_as_the_card(client):
    """A deviation of 289.9 is ±579 on the card; the chart said ±580."""
    rating = RatingFactory(value=1500.0, deviation=289.9)
    RatingSnapshot.objects.create(
        rating=rating, day=BASE_TIME.date(), value=1500.0, deviation=289.9
    )
    html = client.get(f"/player/{rating.player_id}/SO?range=all").content.decode()
    assert '<p class="big">1500 ±579</p>' in html
    tooltips = re.findall(r"<title>[^<]* UTC: ([^<]*)</title>", html)
    assert tooltips == ["1500 ±579"]
    assert "From 1500 ±579 on" in html
    assert "±580" not in html


@pytest.mark.django_db
def test_counts_have_thousands_separators_on_pages(client):
    """Ranks, the ranked count and records read '1,100'; the API keeps numbers."""
    sol = Character.objects.get(code="SO")
    players = Player.objects.bulk_create(
        PlayerFactory.build(id=f"2{n:017}", name=f"P{n}") for n in range(1100)
    )
    Rating.objects.bulk_create(
        Rating(
            player=p,
            character=sol,
            value=1500.0 + n,
            deviation=60.0,
            wins=12345 if n == 0 else 1,
            losses=6789 if n == 0 else 1,
            last_played_at=BASE_TIME,
            last_decay_at=BASE_TIME,
        )
        for n, p in enumerate(players)
    )
    last = players[0].id  # the lowest value: #1,100
    html = client.get(f"/player/{last}/SO").content.decode()
    assert "#1,100 overall · #1,100 Sol" in html
    assert "of 1,100 ranked ratings now" in html
    assert '<p class="big">12,345\u20136,789</p>' in html
    page = client.get("/?page=11").content.decode()
    assert 'data-sort="1100">1,100</td>' in page
    assert 'data-sort="12345">12,345\u20136,789</td>' in page
    api = client.get(f"/api/v1/players/{last}/SO/").json()
    assert (api["wins"], api["losses"]) == (12345, 6789)


@pytest.mark.django_db(transaction=True)
def test_the_statistics_count_the_ranked_ratings_of_one_moment(monkeypatch):
    """A rating that settles while the statistics are read (another connection's commit)
    is in all of them or in none: the ranked total equals the distribution's sum."""
    RatingFactory(value=1600.0, deviation=60.0)
    settling = RatingFactory(value=1700.0, deviation=90.0)
    totals = statistics._totals

    def totals_then_a_commit(*args):
        counted = totals(*args)
        other = connection.copy()
        try:
            with other.cursor() as cursor:
                cursor.execute(
                    "UPDATE players_rating SET deviation = 60 WHERE id = %s", [settling.id]
                )
        finally:
            other.close()
        return counted

    monkeypatch.setattr(statistics, "_totals", totals_then_a_commit)
    recompute_site_statistics(BASE_TIME)
    stored = dict(SiteStatistic.objects.values_list("key", "data"))
    assert stored["totals"]["ranked"] == 1
    assert sum(b["count"] for b in stored["rating_distribution"]["bins"]) == 1
    assert Rating.objects.get(id=settling.id).deviation == 60.0  # it did commit
