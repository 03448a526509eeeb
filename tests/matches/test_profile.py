"""The profile: best character, rating card, history chart points, sets, pages, matchups."""

from __future__ import annotations

import itertools
import math
import re
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db.models import Q
from django.utils import timezone

from matches.models import Match, MatchRating
from matches.params import glicko_params
from matches.ratings.glicko import update, win_probability
from matches.ratings.matchup_offset import OffsetEvidence, one_step_offset
from matches.selectors import history_points
from matches.selectors.history_points import chart_history, rating_history
from matches.selectors.match_history import GameCursor, match_sets
from matches.selectors.profile import Unranked, rating_profile, unranked
from players.formatting import offset_text, rating_text
from players.models import Character, Player, PlayerName, Rating
from players.selectors.rankings import RANKED_COUNTED_PER_RANK, ranked_ratings
from players.templatetags.ratings import top_percent
from tests.factories import BASE_TIME, PlayerFactory, RatingFactory, replay
from tests.fixtures.league import rate_replays
from tests.fixtures.pages import PROFILE_QUERY_LIMIT

# The history's numbers are checked against §4.2's formulas here; the one-chance model's
# history has its own tests (tests/matches/test_one_chance.py).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("reference_formulas")]

A, B, C = "100000000000000001", "100000000000000002", "100000000000000003"


@pytest.fixture
def history(db) -> None:
    """A (Sol) plays B (Ky): W W L, then C (Ky): L, then B (Ky): W, then B (May): W."""
    games = [
        (B, "KY", 1), (B, "KY", 1), (B, "KY", 2), (C, "KY", 2), (B, "KY", 1), (B, "MA", 1),
    ]  # fmt: skip
    rate_replays(
        [
            replay(n, A, opponent, winner=winner, characters=("SO", code))
            for n, (opponent, code, winner) in enumerate(games, start=1)
        ]
    )


def sol() -> Rating:
    return Rating.objects.select_related("player").get(player_id=A, character__code="SO")


def test_player_goes_to_best_character_by_value_minus_three_deviations(client, db):
    rate_replays([replay(1, A, B)])
    Rating.objects.filter(player_id=A).update(value=1700, deviation=120)  # 1340
    rate_replays([replay(2, A, C, characters=("KY", "SO"))])
    Rating.objects.filter(player_id=A, character__code="KY").update(
        value=1500, deviation=40
    )  # 1380
    response = client.get(f"/player/{A}")
    assert response.status_code == 302
    assert response["Location"] == f"/player/{A}/KY"


def test_sets_group_consecutive_games_against_the_same_opponent_and_characters(history):
    page = match_sets(sol())
    summary = [
        (s.opponent.id, s.opponent_character.code, s.wins, s.losses, len(s.games))
        for s in page.sets
    ]
    assert summary == [
        (B, "MA", 1, 0, 1),
        (B, "KY", 1, 0, 1),
        (C, "KY", 0, 1, 1),
        (B, "KY", 2, 1, 3),
    ]
    assert page.next_cursor is None
    oldest = page.sets[-1]
    results = MatchRating.objects.filter(match__player_b_id=B, match__character_b__code="KY")
    changes = [r.change_a for r in results.order_by("match__played_at")[:3]]
    assert oldest.change == pytest.approx(sum(changes))
    assert oldest.first.value == 1500.0  # the first game's pre-game rating


def test_pages_never_cut_a_set_unless_it_is_longer_than_a_page(history):
    rating, seen, cursor, pages = sol(), [], None, []
    while True:
        page = match_sets(rating, before=cursor, games=2)
        pages.append([len(s.games) for s in page.sets])
        seen += [game.match_id for s in page.sets for game in s.games]
        cursor = page.next_cursor
        if cursor is None:
            break
        cursor = GameCursor.parse(str(cursor))  # as it travels through the URL
    assert pages == [[1, 1], [1], [2], [1]]
    assert seen == list(Match.objects.order_by("-played_at").values_list("id", flat=True))


def test_per_game_history_points_follow_the_match_rows(history):
    rating = sol()
    points = rating_history(rating, "7d")
    results = list(MatchRating.objects.select_related("match").order_by("match__played_at"))
    assert len(points) == len(results) + 1
    assert (points[0].value, points[0].deviation) == (1500.0, 350.0)
    params = glicko_params()
    for point, result in zip(points[1:], results, strict=True):
        mine, theirs = (result.value_a, result.deviation_a), (result.value_b, result.deviation_b)
        won = result.match.winner == Match.Winner.A
        assert point.value == pytest.approx(result.value_a + result.change_a)
        assert point.deviation == pytest.approx(
            update(*mine, *theirs, 1.0 if won else 0.0, params)[1]
        )
    assert points[-1].value == pytest.approx(rating.value)
    assert points[-1].deviation == pytest.approx(rating.deviation)
    # Moments read as UTC wall times by the raw queries are the ORM's, aware, in UTC.
    played = [result.match.played_at for result in results]
    assert [point.at for point in points[1:]] == played
    games = [game for game_set in match_sets(rating).sets for game in game_set.games]
    assert [game.played_at for game in reversed(games)] == played
    assert all(game.played_at.utcoffset() == timedelta(0) for game in games)


def test_all_range_reads_daily_snapshots(history):
    rating = sol()
    points = rating_history(rating, "all")
    snapshot = rating.snapshots.get()
    assert [(p.at.date(), p.value, p.deviation) for p in points] == [
        (snapshot.day, snapshot.value, snapshot.deviation)
    ]


def test_history_points_leave_out_pending_games_and_hidden_opponents(history):
    Player.objects.filter(id=C).update(hidden=True)
    pending = Match.objects.order_by("-played_at").first()
    MatchRating.objects.filter(match=pending).delete()
    points = rating_history(sol(), "7d")
    shown = Match.objects.exclude(player_b_id=C).exclude(id=pending.id).order_by("played_at")
    assert len(shown) == 4
    assert [point.at for point in points[1:]] == [match.played_at for match in shown]


def test_a_busy_chart_draws_its_last_games_and_the_days_before_them(client, db, monkeypatch):
    """Three games a day for five days (A alternately on sides a and b): with room for
    four games, the chart has the end of each of the first three days, then the rating
    before the fourth last game and after each of the last four."""
    rate_replays(
        [
            replay(
                3 * day + n,
                *((A, B) if n % 2 else (B, A)),
                characters=("SO", "SO"),
                played_at=BASE_TIME + timedelta(days=day, hours=n),
            )
            for day in range(5)
            for n in range(3)
        ]
    )
    rating = sol()
    until = BASE_TIME + timedelta(days=6)
    per_game = rating_history(rating, "30d", until=until)
    assert chart_history(rating, "30d", until=until) == (per_game, 0)  # 15 games: all fit
    monkeypatch.setattr(history_points, "CHART_GAME_POINTS", 4)
    points, days = chart_history(rating, "30d", until=until)
    assert days == 3
    snapshots = list(rating.snapshots.order_by("day").values_list("day", "value", "deviation"))
    assert [(p.at.date(), p.value, p.deviation) for p in points[:3]] == snapshots[:3]
    assert points[4:] == per_game[-4:]  # after each of the last four games
    # Before the first of them: the rating after the game before, grown a little uncertain.
    assert (points[3].at, points[3].value) == (per_game[-4].at, per_game[-5].value)
    assert points[3].deviation > per_game[-5].deviation
    assert points[3].at.date() == snapshots[3][0]  # day four: its snapshot comes after
    assert [p.at for p in points] == sorted(p.at for p in points)
    assert (points[-1].value, points[-1].deviation) == (rating.value, rating.deviation)
    monkeypatch.setattr(timezone, "now", lambda: until)
    html = client.get(f"/player/{A}/SO").content.decode()
    caption = "at the end of each day played over the last 30 days, then after each of the last 4"
    assert caption in html


def test_profile_page_shows_the_rating_card_and_history(client, history):
    rating = sol()
    # The whole history (one day played: a point on its band) does not age out like 30 days.
    html = client.get(f"/player/{A}/SO?range=all").content.decode()
    assert rating_text(rating.value, rating.deviation) in html
    assert f"{rating.wins}\u2013{rating.losses}" in html
    assert "Unranked" in html  # six games leave the ± far above 150
    assert html.count("<tr>\n        <td><time") == 4  # four sets
    assert '<svg class="chart"' in html and html.count('class="chart-dot"') == 1
    assert f'href="/player/{A}/KY"' not in html  # A has no other character
    assert "Past names" in html


def test_history_rows_show_both_ratings_the_odds_and_marks(client, db):
    """A set of two games against B: an even first game between unsettled ratings, then a
    lopsided one between established ratings, which does not count
    (docs/rating-model.md#which-games-count)."""
    rate_replays([replay(1, A, B)])
    Rating.objects.filter(player_id=A).update(value=2000, deviation=30)
    Rating.objects.filter(player_id=B).update(value=1400, deviation=30)
    rate_replays([replay(2, A, B)])

    (only_set,) = match_sets(sol()).sets
    even, lopsided = only_set.games_oldest_first
    assert even.win_probability == even.model_win_probability == pytest.approx(0.5)
    assert even.uncertain and even.opponent_uncertain and not even.uncounted
    expected = win_probability(2000, 30, 1400, 30)  # no decay within the hour
    assert lopsided.model_win_probability == pytest.approx(expected) == pytest.approx(0.968415)
    assert not lopsided.uncertain and not lopsided.opponent_uncertain
    assert lopsided.uncounted and lopsided.change == 0
    assert only_set.win_probability == even.win_probability  # the odds before the set
    assert only_set.uncounted == 1

    html = client.get(f"/player/{A}/SO").content.decode()
    history_html = html.split('id="matches-heading"')[1].split("</table>")[0]
    rows = re.findall(r"<tr[ >].*?</tr>", history_html, re.S)
    cells = [re.sub(r"<[^>]+>|\s+", " ", row).split() for row in rows[1:]]  # after the head
    set_row, first, second = cells
    # The set's change opens on its expected wins: the shown 50% and 97% summed.
    assert " ".join(set_row).endswith(
        "1500 ±700 ? 1500 ±700 ? 50% 2\u20130 +162.2 expected 1.5 wins, won 2: +162.2 ∅"
    )
    assert " ".join(first).endswith("game 1 1500 ±700 ? 1500 ±700 ? 50% W +162.2")
    assert " ".join(second).endswith("game 2 2000 ±60 1400 ±60 97% W 0.0 ∅")
    assert 'title="1 of 2 games did not count"' in html
    assert "Did not count: a lopsided game between established players" in html
    assert "Unsettled: their ± was 150 or more before this game" in html


def test_ranked_ratings_are_counted_up_to_a_bound_and_the_profile_says_so(
    client, league, monkeypatch
):
    order = list(ranked_ratings())
    best, second = order[0], order[1]
    assert len(order) > 4
    monkeypatch.setattr("players.selectors.rankings.RANKED_COUNTED_PER_RANK", 2)
    ranks = rating_profile(second.player_id, second.character.code).ranks
    assert (ranks.overall, ranks.ranked, ranks.more_ranked) == (2, 4, True)
    assert ranks.top_percent >= 100 * 2 / len(order)  # an upper bound on the share
    html = client.get(f"/player/{best.player_id}/{best.character.code}").content.decode()
    assert "of more than 2 ranked ratings" in html
    monkeypatch.setattr("players.selectors.rankings.RANKED_COUNTED_PER_RANK", len(order))
    ranks = rating_profile(best.player_id, best.character.code).ranks
    assert (ranks.ranked, ranks.more_ranked) == (len(order), False)


@pytest.mark.parametrize("rank", [1, 7, 250, 40_000])
def test_a_share_past_the_counting_bound_reads_as_the_exact_one(rank):
    # Counting stops at RANKED_COUNTED_PER_RANK times the rank: any total beyond that
    # gives a share that reads the same as the bound's.
    bound = RANKED_COUNTED_PER_RANK * rank
    for total in (bound + 1, 3 * bound, 1_000 * bound):
        assert top_percent(100 * rank / total) == top_percent(100 * rank / bound)


def test_ranked_profile_shows_ranks_percentile_peak_and_best_win(
    client, league, django_assert_max_num_queries
):
    order = list(ranked_ratings())
    rating = next(r for r in order if r.best_win_value is not None)
    overall = order.index(rating) + 1
    within = [r for r in order if r.character_id == rating.character_id].index(rating) + 1
    ranked = len(order)
    url = f"/player/{rating.player_id}/{rating.character.code}"
    with django_assert_max_num_queries(PROFILE_QUERY_LIMIT):
        html = client.get(url).content.decode()
    assert f"#{overall} overall · #{within} {rating.character.name}" in html
    profile = rating_profile(rating.player_id, rating.character.code)
    assert profile.ranks.top_percent == pytest.approx(100 * overall / ranked)
    assert f"of {ranked:,} ranked ratings" in html
    assert rating_text(rating.peak_value, rating.peak_deviation) in html
    assert rating_text(rating.best_win_value, rating.best_win_deviation) in html
    assert f'href="/player/{rating.best_win_opponent_id}/{rating.best_win_character.code}"' in html
    assert len(profile.matchups.rows) == rating.matchups.count() > 3
    body = html
    assert [offset_text(35.4, 40.2), offset_text(-12.0, 61), offset_text(-0.4, 9)] == [
        "+35 ±40",
        "\u221212 ±61",
        "0 ±9",
    ]
    overall = OffsetEvidence()
    for stored in rating.matchups.all():
        evidence = OffsetEvidence(
            stored.wins + stored.losses, stored.wins, stored.expected_wins, stored.information
        )
        overall += evidence
        offset = one_step_offset(evidence, 100.0)
        assert f">{offset_text(offset.value, offset.half_width())}</td>" in body
    # The Overall row sums every opposing character's games.
    footer = body[body.index("<tfoot>") : body.index("</tfoot>")]
    offset = one_step_offset(overall, 100.0)
    assert '<th scope="row">Overall</th>' in footer
    assert (
        f'<td class="num hide-narrow" data-sort="{overall.games}">{overall.games:,}</td>' in footer
    )
    assert f">{overall.wins}\u2013{overall.games - overall.wins}<" in footer
    assert f">{overall.expected_wins:.1f}<" in footer
    assert f">{offset_text(offset.value, offset.half_width())}</td>" in footer


def test_history_pages_are_bounded_and_linked(client, league, django_assert_max_num_queries):
    busiest = max(Rating.objects.select_related("character"), key=lambda r: r.games)
    assert busiest.games > 120
    profile = f"/player/{busiest.player_id}/{busiest.character.code}"
    query, seen, pages = "", [], 0
    while query is not None:
        with django_assert_max_num_queries(PROFILE_QUERY_LIMIT):
            html = client.get(profile + query).content.decode()
        seen += re.findall(r'<td><time datetime="([^"]+)"', html)
        older = re.search(r'rel="next" href="([^"#]+)', html)
        query = older.group(1).replace("&amp;", "&") if older else None
        pages += 1
    assert pages >= 3
    assert seen == sorted(seen, reverse=True)  # newest first, no page repeats a set
    assert len(seen) == len(set(seen))


def test_newer_pages_mirror_older_ones(league):
    """Going back up with `after` finds the same games, never cuts a set in two (unless
    it is longer than a page) and stops at the newest page."""
    rating = max(Rating.objects.select_related("player", "character"), key=lambda r: r.games)

    def walk(direction: str, cursor: GameCursor | None) -> list:
        """Pages from `cursor` on: older ones ('before'), or newer ones ('after')."""
        pages = []
        while True:
            page = match_sets(rating, games=20, **{direction: cursor})
            pages.append(page)
            cursor = page.next_cursor if direction == "before" else page.previous_cursor
            if cursor is None:
                return pages
            cursor = GameCursor.parse(str(cursor))  # as it travels through the URL

    down = walk("before", None)
    assert len(down) > 5
    assert down[0].previous_cursor is None  # the newest page
    up = walk("after", down[-1].previous_cursor)

    def games(pages: list) -> list[int]:
        return [game.match_id for page in pages for s in page.sets for game in s.games]

    assert games(up[::-1]) == games(down[:-1])  # newest first, no game twice or missed
    assert all(page.next_cursor is not None for page in up)  # older games are below
    sets = [s for page in up[::-1] for s in page.sets]
    for newer, older in itertools.pairwise(sets):
        same = (newer.opponent.id, newer.opponent_character.id) == (
            older.opponent.id,
            older.opponent_character.id,
        )
        assert not same or len(newer.games) + len(older.games) > 20


def test_a_page_is_the_newest_games_of_both_sides(league):
    """A page's games are the newest visible ones with the rating on either side, as
    one list: each side's page is cut to the page of both before any row is read."""
    rating = max(Rating.objects.select_related("player", "character"), key=lambda r: r.games)
    visible = Match.objects.exclude(player_a__hidden=True).exclude(player_b__hidden=True)
    newest = list(
        visible.filter(
            Q(player_a=rating.player, character_a=rating.character)
            | Q(player_b=rating.player, character_b=rating.character)
        )
        .order_by("-played_at", "-id")
        .values_list("id", "player_a_id")
    )
    page = match_sets(rating, games=20)
    shown = [game.match_id for s in page.sets for game in s.games]
    assert 0 < len(shown) <= 20
    assert shown == [match_id for match_id, _ in newest[: len(shown)]]
    sides = {player_a == rating.player_id for _, player_a in newest[: len(shown)]}
    assert sides == {True, False}  # both sides on the page


def test_history_pages_link_newer_games(client, league, django_assert_max_num_queries):
    busiest = max(Rating.objects.select_related("character"), key=lambda r: r.games)
    profile = f"/player/{busiest.player_id}/{busiest.character.code}"

    def times(html: str) -> list[str]:
        return re.findall(r'<td><time datetime="([^"]+)"', html)

    first = client.get(profile).content.decode()
    assert 'rel="prev"' not in first and "Newest games" not in first
    older = re.search(r'rel="next" href="([^"#]+)', first).group(1).replace("&amp;", "&")
    second = client.get(profile + older).content.decode()
    third_query = re.search(r'rel="next" href="([^"#]+)', second).group(1)
    third = client.get(profile + third_query.replace("&amp;", "&")).content.decode()
    assert "Newest games" in third
    newer = re.search(r'rel="prev" href="([^"#]+)', third).group(1).replace("&amp;", "&")
    assert "after=" in newer
    with django_assert_max_num_queries(PROFILE_QUERY_LIMIT):
        back = client.get(profile + newer).content.decode()
    assert times(back) == times(second)
    assert min(times(back)) > max(times(third))


def test_bad_range_or_cursor_is_400(client, history):
    assert client.get(f"/player/{A}/SO?range=1y").status_code == 400
    assert client.get(f"/player/{A}/SO?before=yesterday").status_code == 400
    assert client.get(f"/player/{A}/SO?after=1-x").status_code == 400


def test_unknown_and_hidden_players_are_friendly_404s(client, history):
    assert client.get("/player/999").status_code == 404
    assert client.get(f"/player/{A}/AB").status_code == 404
    assert "no rated games of this player" in client.get(f"/player/{A}/AB").content.decode()
    Player.objects.filter(id=A).update(hidden=True)
    assert client.get(f"/player/{A}").status_code == 404
    assert client.get(f"/player/{A}/SO").status_code == 404
    # ... and B's history no longer shows the games against them, nor does the chart.
    assert client.get(f"/player/{B}/KY").content.decode().count("<td><time") == 0
    assert rating_history(Rating.objects.get(player_id=B, character__code="KY"), "7d") == []


def test_past_names_and_hostile_names_are_escaped(client, db):
    script, rtl = "<script>alert(1)</script>", "\u202eevil"
    rate_replays(
        [
            replay(1, A, B, names=("first name", rtl)),
            replay(2, A, B, names=(script, rtl), played_at=BASE_TIME + timedelta(hours=1)),
        ]
    )
    assert PlayerName.objects.filter(player_id=A).count() == 2
    html = client.get(f"/player/{A}/SO").content.decode()
    assert script not in html
    assert "<bdi>&lt;script&gt;alert(1)&lt;/script&gt;</bdi>" in html
    assert "<bdi>first name</bdi>" in html
    assert "<title>&#x2068;&lt;script&gt;alert(1)&lt;/script&gt;&#x2069;" in html
    # The opponent's override is gone: isolated, the name reads as stored without it.
    assert "<bdi>evil</bdi>" in html and rtl not in html
    # As an opponent in another's match history (the Jinja2 partial) too.
    html = client.get(f"/player/{B}", follow=True).content.decode()
    assert script not in html
    assert "<bdi>&lt;script&gt;alert(1)&lt;/script&gt;</bdi></a>" in html


def test_profile_head_and_cards_read_as_the_django_filters_wrote_them(client, db):
    """The player line, the character tabs (values rounded half up, as floatformat does),
    the record, the peak, a best win over a hidden player and past names with their days."""
    me = PlayerFactory(platform="ps", floor=99, supporter=True, name="Now")
    hidden = PlayerFactory(hidden=True)
    RatingFactory(
        player=me, character=Character.objects.get(code="SO"), value=1622.5, deviation=80.0,
        wins=30, losses=5, last_played_at=BASE_TIME,
        peak_value=1700.4, peak_deviation=60.0, peak_at=BASE_TIME - timedelta(days=3),
        best_win_opponent=hidden, best_win_character=Character.objects.get(code="KY"),
        best_win_value=1650.0, best_win_deviation=65.0, best_win_at=BASE_TIME,
    )  # fmt: skip
    RatingFactory(player=me, character=Character.objects.get(code="KY"), value=1401.5, wins=1)
    PlayerName.objects.create(
        player=me, name="Then", first_seen=BASE_TIME - timedelta(days=9), last_seen=BASE_TIME
    )
    html = client.get(f"/player/{me.id}/SO").content.decode()
    day = f"{BASE_TIME:%Y-%m-%d}"
    assert f"PlayStation · Celestial\n    · id <code>{me.id}</code>" in html
    assert '· <span class="badge">Supporter</span>' in html
    utc = f'datetime="{BASE_TIME:%Y-%m-%dT%H:%M:%S}Z" title="{BASE_TIME:%Y-%m-%d %H:%M} UTC"'
    assert f'last seen <time {utc} data-local="day">{day}</time>' in html
    assert (
        f'<a href="/player/{me.id}/SO" title="Sol: {rating_text(1622.5, 80.0)}, 30\u20135"'
        ' aria-current="page">Sol <span class="muted">1622</span></a>'  # 1622.5, as its title
    ) in html
    assert f'<a href="/player/{me.id}/KY" title="Ky: ' in html
    assert 'Ky <span class="muted">1402</span>' in html
    assert "<p>86% won · last game" in html
    assert f'<p class="big">{rating_text(1700.4, 60.0)}</p>' in html
    assert f'<p>a hidden player\n      (Ky) · <time {utc} data-local="day">' in html
    then = f"{BASE_TIME - timedelta(days=9):%Y-%m-%d}"
    assert f'<bdi>Then</bdi> <span class="muted">{then} \u2013 {day}</span>' in html
    assert "Unranked: too few games yet (±160 after" in html
    assert "No counted games yet." in html


def test_the_chart_rings_the_cards_peak_and_says_why_the_line_goes_higher(client, league):
    rating = next(r for r in ranked_ratings() if r.peak_value is not None)
    url = f"/player/{rating.player_id}/{rating.character.code}?range=all"
    html = client.get(url).content.decode()
    assert html.count('class="chart-peak"') == 1
    assert f"Peak, {rating.peak_at:%Y-%m-%d %H:%M} UTC: " in html
    assert "The ring is the peak." in html

    # The note is there exactly when the line goes above the card's peak (which it can
    # only do while unsettled): moved below and above the line's highest point.
    points, _ = chart_history(rating, "all", until=timezone.now())
    highest = max(point.value for point in points)
    note = "Where the line is higher, ± was 150 or wider: records count only settled ratings."
    for peak, noted in ((highest - 5, True), (highest + 5, False)):
        Rating.objects.filter(pk=rating.pk).update(peak_value=peak)
        cache.clear()  # the page is cached by ratings generation, which a bare update keeps
        assert (note in client.get(url).content.decode()) is noted


def test_the_caption_names_the_ring_only_where_the_chart_draws_it(client, league, monkeypatch):
    """A 30-day chart of a rating whose peak is older shows no ring, and says none."""
    now = league.ended_at
    monkeypatch.setattr(timezone, "now", lambda: now)
    rating = next(
        r
        for r in ranked_ratings()
        if r.peak_value is not None and chart_history(r, "30d", until=now)[0]
    )
    url = f"/player/{rating.player_id}/{rating.character.code}?range=30d"
    last_point = chart_history(rating, "30d", until=now)[0][-1]
    for peak_at, ringed in ((last_point.at, True), (now - timedelta(days=45), False)):
        Rating.objects.filter(pk=rating.pk).update(peak_at=peak_at)
        cache.clear()  # the page is cached by ratings generation, which a bare update keeps
        html = client.get(url).content.decode()
        assert ('class="chart-peak"' in html) is ringed
        assert ("The ring is the peak." in html) is ringed


def test_an_idle_rating_says_it_is_idle_and_a_new_one_that_it_is_too_wide(client, db):
    """An idle player was told "± too wide: ±158" instead of why and what brings it back."""
    # Settled at ±146 after its last game, then 300 idle hours: ±146 grows to ±158.
    idle_deviation = math.sqrt(73.0**2 + 300 * glicko_params().decay_constant ** 2)
    idle = RatingFactory(
        deviation=idle_deviation,
        last_played_at=BASE_TIME,
        last_decay_at=BASE_TIME + timedelta(hours=300),
    )
    assert unranked(idle) == Unranked(flag=None, games=2, idle_since=BASE_TIME)
    html = client.get(f"/player/{idle.player_id}/SO").content.decode()
    assert (
        f"Unranked: idle since {BASE_TIME:%b} {BASE_TIME.day}: ranked again in about 2 more "
        "games against settled players of your level." in html
    )
    # Too wide after its last game already: too few games.
    new = RatingFactory(deviation=100.0, wins=1, losses=0)
    assert unranked(new) == Unranked(flag=None, games=10)
    html = client.get(f"/player/{new.player_id}/SO").content.decode()
    assert (
        "Unranked: too few games yet (±200 after 1 game, ranks need ± below 150): ranked in "
        "about 10 more games against settled players of your level." in html
    )
    # Never settled, then idle: still too few games, not idleness.
    wide = RatingFactory(
        deviation=math.sqrt(90.0**2 + 300 * glicko_params().decay_constant ** 2),
        last_decay_at=BASE_TIME + timedelta(hours=300),
    )
    assert unranked(wide).idle_since is None
