"""The profile's "good matches" block, and rank tiers beside ratings (issue 6)."""

from __future__ import annotations

import re
from html import unescape

import pytest

from matches.selectors.opponents import fair_opponents
from matches.services.flags import set_player_flags
from players.formatting import rating_text, shown_value
from players.models import Player, Rating
from players.seed_roster import SEED_ROSTER as ROSTER
from players.selectors.rankings import ranked_ratings
from tests.fixtures.pages import PROFILE_QUERY_LIMIT, QUERY_LIMIT
from web.generation import bump_generation

pytestmark = pytest.mark.django_db

NAMES = {code: name for _, code, name in ROSTER}
OPPONENT_ROW = re.compile(
    r'<th scope="row"><a href="/player/([^/"]+)/([A-Z]{2})"><bdi>(.*?)</bdi></a> '
    r'<abbr title="([^"]*)">[A-Z]{2}</abbr></th>\s*'
    r'<td class="num">(.*?)</td>\s*<td class="num">(.*?)</td>',
    re.S,
)
RANKING_RATING = re.compile(
    r'<td class="num" data-sort="([^"]+)">\d+ ±\d+(?: <span class="tier">(.*?)</span>)?</td>'
)


@pytest.fixture
def active(settings) -> None:
    """The simulated league played in September: count it as recent."""
    settings.FAIR_OPPONENT_DAYS = 3650


def busiest() -> Rating:
    return max(Rating.objects.select_related("player", "character"), key=lambda r: r.games)


def url_of(rating: Rating) -> str:
    return f"/player/{rating.player_id}/{rating.character.code}"


def opponents_block(html: str) -> str:
    found = re.search(r'<section aria-labelledby="opponents-heading".*?</section>', html, re.S)
    return found.group(0) if found else ""


def test_the_profiles_fair_opponents_are_the_fairest_first(
    client, league, active, settings, django_assert_max_num_queries
):
    rating = busiest()
    expected = fair_opponents(rating.player_id, rating.character_id)
    assert len(expected) == 10
    with django_assert_max_num_queries(PROFILE_QUERY_LIMIT):
        html = client.get(url_of(rating)).content.decode()
    block = opponents_block(html)
    assert "Good matches for you" in block
    assert "active in the last 3650 days" in block
    # Names compared as text: the rows' escaping (Jinja2's) may spell a quote differently.
    rows = [
        (*row[:2], unescape(row[2]), unescape(row[3]), *row[4:])
        for row in OPPONENT_ROW.findall(block)
    ]
    settled = settings.RATING_LOW_DEVIATION
    assert rows == [
        (
            o["player_id"],
            o["character"],
            o["name"],
            NAMES[o["character"]],
            rating_text(o["value"], o["deviation"])
            + (f' <span class="tier">{o["tier"]}</span>' if o["deviation"] < settled else ""),
            f"{100 * o['win_probability']:.0f}%",
        )
        for o in expected
    ]
    assert rating.player_id not in {o["player_id"] for o in expected}


def test_hidden_and_flagged_players_are_never_suggested(client, league, active):
    rating = busiest()
    first, second, *_ = fair_opponents(rating.player_id, rating.character_id)
    Player.objects.filter(id=first["player_id"]).update(hidden=True)
    Player.objects.filter(id=second["player_id"]).update(cheater=True)
    bump_generation()
    block = opponents_block(client.get(url_of(rating)).content.decode())
    shown = [row[0] for row in OPPONENT_ROW.findall(block)]
    assert len(shown) == 10
    assert first["player_id"] not in shown and second["player_id"] not in shown
    assert f"/player/{first['player_id']}/" not in block
    assert f"/player/{second['player_id']}/" not in block


def test_a_flagged_player_gets_no_suggestions(
    client, league, active, queued_recomputes, django_assert_max_num_queries
):
    rating = busiest()
    set_player_flags(Player.objects.get(id=rating.player_id), cheater=True, by="test")
    # Without the block the profile stays within the other pages' budget: no opponent queries.
    with django_assert_max_num_queries(QUERY_LIMIT):
        html = client.get(url_of(rating)).content.decode()
    assert "Marked as a cheater: their games count for nobody. Every rating is being" in html
    assert 'id="opponents-heading"' not in html


def test_without_recent_players_the_block_says_so(client, league, settings):
    settings.FAIR_OPPONENT_DAYS = 14  # the league's last game was weeks before today
    block = opponents_block(client.get(url_of(busiest())).content.decode())
    assert "No other player has played in the last 14 days" in block
    assert "<table" not in block


def test_opponent_names_are_escaped(client, league, active):
    rating = busiest()
    first = fair_opponents(rating.player_id, rating.character_id)[0]
    Player.objects.filter(id=first["player_id"]).update(name="<script>alert(1)</script>")
    bump_generation()
    html = client.get(url_of(rating)).content.decode()
    assert "<script>alert(1)" not in html
    assert "<bdi>&lt;script&gt;alert(1)&lt;/script&gt;</bdi>" in opponents_block(html)


def test_tiers_beside_ratings_on_the_profile_and_in_the_rankings(client, league, settings):
    settings.RATING_TIERS = ["0:Low", "1500:High"]
    best = ranked_ratings().first()
    html = client.get(url_of(best)).content.decode()
    card = rating_text(best.value, best.deviation)
    badge = '<span class="tier">High</span>'
    assert f'<p class="big">{card} {badge}</p>' in html
    for url, rows in (("/", 30), ("/?per=player", 20), (f"/top/{best.character.code}", 1)):
        cells = RANKING_RATING.findall(client.get(url).content.decode())
        assert len(cells) >= rows
        # The tier of the value as shown: 1499.6 reads 1500 and is High.
        expected = ["High" if shown_value(float(value)) >= 1500 else "Low" for value, _ in cells]
        assert [tier for _, tier in cells] == expected
    tiers = {tier for _, tier in RANKING_RATING.findall(client.get("/").content.decode())}
    assert len(tiers) > 1  # the league spans several tiers


def test_configured_tier_names_are_escaped(client, league, settings):
    settings.RATING_TIERS = ["0:<b>Low</b>", "1500:High"]
    html = client.get("/").content.decode()
    assert "<b>Low</b>" not in html
    cells = RANKING_RATING.findall(html)
    assert {tier for _, tier in cells} <= {"&lt;b&gt;Low&lt;/b&gt;", "High"}
    for value, tier in cells:
        assert tier == ("High" if shown_value(float(value)) >= 1500 else "&lt;b&gt;Low&lt;/b&gt;")


def test_tiers_off_shows_no_badge_anywhere(client, league, settings, active):
    settings.RATING_TIERS = ["off"]
    rating = busiest()
    for url in ("/", "/?per=player", f"/top/{rating.character.code}", url_of(rating)):
        html = client.get(url).content.decode()
        assert 'class="tier"' not in html, url
    block = opponents_block(client.get(url_of(rating)).content.decode())
    assert len(OPPONENT_ROW.findall(block)) == 10  # the opponents are still there, untiered


def test_no_tier_beside_a_rating_too_unsettled_to_be_ranked(client, league, settings, active):
    settings.RATING_TIERS = ["0:Low", "1500:High"]
    rating = busiest()
    html = client.get(url_of(rating)).content.decode()
    assert 'class="tier"' in opponents_block(html)
    assert '<p class="big">' + rating_text(rating.value, rating.deviation) + " <span" in html
    settings.RATING_LOW_DEVIATION = 1  # no rating settled enough to be ranked
    bump_generation()
    html = client.get(url_of(rating)).content.decode()
    assert 'class="tier"' not in html
    assert len(OPPONENT_ROW.findall(opponents_block(html))) == 10
