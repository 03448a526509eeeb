"""The matches' hand-written queries give the rows of an ORM query of the same meaning,
on a league with hidden players, cheaters and unsettled ratings (players.rules)."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta

import pytest
from django.db.models import F

from matches.models import CharacterMatchup, Match, MatchRating, Patch
from matches.selectors.history_points import rating_history
from matches.selectors.match_history import PRIVATE_PLAYER, match_sets
from matches.selectors.opponents import fair_opponents_at
from matches.selectors.rivals import MEETINGS_WINDOW, players_met_most
from matches.services import character_matchups, statistics
from matches.services.character_matchups import BRACKET_LIMITS, rebuild_character_matchups
from players import rules
from players.models import Player, Rating, RatingSnapshot
from players.selectors.rankings import top_rated_keys

pytestmark = pytest.mark.django_db


def shown_ratings() -> list[Rating]:
    """The ratings whose profiles are shown (their players not hidden), with games."""
    ratings = Rating.objects.filter(~rules.hidden("player__"), wins__gt=0).select_related("player")
    return list(ratings.order_by("player_id", "character_id"))


def games_of(rating: Rating) -> list[Match]:
    """The rating's games but those against withdrawn players (private ones stay, as "a
    private player"), newest first, through the ORM's joins."""
    return list(
        Match.objects.of_rating(rating.player_id, rating.character_id)
        .filter(~rules.withdrawn("player_a__"), ~rules.withdrawn("player_b__"))
        .select_related("rating")
        .order_by("-played_at", "-id")
    )


def test_match_history_holds_the_games_against_shown_players(flagged_league: datetime) -> None:
    for rating in shown_ratings():
        page = match_sets(rating, games=10_000)
        shown = [game for games in page.sets for game in games.games]
        expected = games_of(rating)
        assert [game.match_id for game in shown] == [match.id for match in expected]
        for game, match in zip(shown, expected, strict=True):
            opponent = match.player_b if match.player_a_id == rating.player_id else match.player_a
            if opponent.private:
                assert game.opponent == PRIVATE_PLAYER
                continue
            assert (game.opponent.id, game.opponent.cheater) == (opponent.id, opponent.cheater)
            assert game.counted == match.rating.counted


def opponent_of(match: Match, player_id: str) -> str:
    return match.player_b_id if match.player_a_id == player_id else match.player_a_id


def test_sets_against_one_opponent_are_the_history_sets_against_them(
    flagged_league: datetime,
) -> None:
    # Games against hidden players sit between those against one opponent: the history,
    # which leaves them out, joins what they would have parted, and so must the sets
    # against one opponent.
    merged = 0
    hidden = set(Player.objects.filter(rules.hidden()).values_list("id", flat=True))
    for rating in shown_ratings():
        history = match_sets(rating, games=10_000).sets
        ids = [[game.match_id for game in games.games] for games in history]
        opponents = {opponent_of(match, rating.player_id) for match in games_of(rating)}
        for opponent_id in opponents - hidden:  # a private opponent has no sets of their own
            against = match_sets(rating, games=10_000, opponent_id=opponent_id).sets
            expected = [
                set_ids
                for set_ids, games in zip(ids, history, strict=True)
                if games.opponent.id == opponent_id
            ]
            assert [[game.match_id for game in games.games] for games in against] == expected
            merged += len(expected)
    assert merged > 100


def test_players_met_most_are_the_shown_opponents_of_the_newest_games(
    flagged_league: datetime,
) -> None:
    flagged = set(Player.objects.filter(rules.flagged()).values_list("id", flat=True))
    for rating in shown_ratings():
        games, wins = Counter(), Counter()
        for match in games_of(rating)[:MEETINGS_WINDOW]:
            opponent = opponent_of(match, rating.player_id)
            if opponent not in flagged:
                games[opponent] += 1
                won = match.winner == (
                    Match.Winner.A if match.player_a_id == rating.player_id else Match.Winner.B
                )
                wins[opponent] += won
        met = players_met_most(rating, shown=10_000)
        assert {m.id: (m.games, m.wins) for m in met} == {
            opponent: (count, wins[opponent]) for opponent, count in games.items()
        }
        assert [m.games for m in met] == sorted((m.games for m in met), reverse=True)


def test_rating_history_draws_each_rated_game_against_a_shown_player(
    flagged_league: datetime,
) -> None:
    since = flagged_league - timedelta(days=30)
    for rating in shown_ratings():
        rated = [m for m in reversed(games_of(rating)) if m.played_at >= since]
        after = [
            m.rating.value_a + m.rating.change_a
            if m.player_a_id == rating.player_id
            else m.rating.value_b + m.rating.change_b
            for m in rated
        ]
        points = rating_history(rating, "30d", until=flagged_league)
        assert [point.value for point in points[1:]] == pytest.approx(after)


def test_fair_opponents_are_active_ratings_of_players_not_flagged(
    flagged_league: datetime,
) -> None:
    since = flagged_league - timedelta(days=14)
    for rating in shown_ratings()[::5]:
        candidates = fair_opponents_at(
            rating.player_id,
            rating.character_id,
            rating.value,
            rating.deviation,
            10_000,
            now=flagged_league,
        )
        expected = (
            Rating.objects.filter(~rules.flagged("player__"), last_played_at__gte=since)
            .exclude(player_id=rating.player_id)
            .values_list("player_id", "character__code")
        )
        found = [(c["player_id"], c["character"]) for c in candidates]
        assert sorted(found) == sorted(expected)


def test_character_matchups_count_the_counted_games_between_rated_players(
    flagged_league: datetime,
) -> None:
    rebuild_character_matchups()
    members = top_rated_keys(max(limit for limit in BRACKET_LIMITS.values() if limit))
    counted = (
        MatchRating.objects.filter(
            ~rules.unrated("match__player_a__"), ~rules.unrated("match__player_b__"), counted=True
        )
        # Between ratings both settled before the game (issue 35).
        .filter(deviation_a__lt=rules.low_deviation(), deviation_b__lt=rules.low_deviation())
        .exclude(match__character_a=F("match__character_b"))
        .values_list(
            "match__player_a_id",
            "match__character_a_id",
            "match__player_b_id",
            "match__character_b_id",
            "match__winner",
        )
    )
    expected: dict[str, Counter] = {bracket: Counter() for bracket in BRACKET_LIMITS}
    for player_a, a, player_b, b, winner in counted:
        reach = max(members.get((player_a, a), 10**9), members.get((player_b, b), 10**9))
        won, lost = ((a, b), (b, a)) if winner == Match.Winner.A else ((b, a), (a, b))
        for bracket, limit in BRACKET_LIMITS.items():
            if limit is None or reach <= limit:
                expected[bracket][(*won, "wins")] += 1
                expected[bracket][(*lost, "losses")] += 1
    assert expected[CharacterMatchup.Bracket.TOP100], "some games are between top players"
    for bracket in BRACKET_LIMITS:
        stored: Counter = Counter()
        for row in CharacterMatchup.objects.filter(bracket=bracket):
            stored[(row.character_id, row.opponent_id, "wins")] += row.wins
            stored[(row.character_id, row.opponent_id, "losses")] += row.losses
        assert +stored == expected[bracket], bracket


def test_the_proportional_bracket_counts_the_games_of_players_ranked_within_their_share(
    flagged_league: datetime, monkeypatch: pytest.MonkeyPatch, settings
) -> None:
    """Computed again from the rows alone: each character's share of play (its unflagged
    ratings' games over all of them), each rating's rank within its character (settled,
    unflagged, by value), and the counted games between two settled ratings of different
    characters whose both sides rank within the bracket's size times their character's
    share. A size of 10 instead of 1,000, so that the 40 players' ranks reach past it."""
    monkeypatch.setattr(character_matchups, "PROPORTIONAL_BRACKET_SIZE", 20)
    rebuild_character_matchups()
    ratings = list(Rating.objects.select_related("player"))
    unflagged = [
        r for r in ratings if not (r.player.hidden or r.player.cheater or r.player.private)
    ]
    games: Counter = Counter()
    for rating in unflagged:
        games[rating.character_id] += rating.wins + rating.losses
    ranks: dict[tuple[str, int], int] = {}
    for character in games:
        ranked = sorted(
            (r for r in unflagged if r.character_id == character and r.deviation < 75),
            key=lambda r: (-r.value, r.id),
        )
        for rank, rating in enumerate(ranked, start=1):
            ranks[(rating.player_id, character)] = rank

    def member(player: str, character: int) -> bool:
        limit = 20 * games[character] / sum(games.values())
        return ranks.get((player, character), 10**9) <= limit

    expected: Counter = Counter()
    for rating in MatchRating.objects.filter(counted=True).select_related("match"):
        match = rating.match
        a, b = match.character_a_id, match.character_b_id
        settled = max(rating.deviation_a, rating.deviation_b) < settings.RATING_LOW_DEVIATION
        if a != b and settled and member(match.player_a_id, a) and member(match.player_b_id, b):
            won, lost = ((a, b), (b, a)) if match.winner == Match.Winner.A else ((b, a), (a, b))
            expected[(*won, "wins")] += 1
            expected[(*lost, "losses")] += 1
    stored: Counter = Counter()
    for row in CharacterMatchup.objects.filter(bracket=CharacterMatchup.Bracket.PROPORTIONAL):
        stored[(row.character_id, row.opponent_id, "wins")] += row.wins
        stored[(row.character_id, row.opponent_id, "losses")] += row.losses
    top1000 = CharacterMatchup.objects.filter(bracket=CharacterMatchup.Bracket.TOP1000)
    assert 0 < sum(expected.values()) < 2 * sum(row.wins for row in top1000)
    assert +stored == expected


def test_each_patch_distribution_counts_the_last_settled_snapshots_of_unflagged_players(
    flagged_league: datetime,
) -> None:
    first = Match.objects.order_by("played_at").first().played_at
    middle = first + (flagged_league - first) / 2
    Patch.objects.create(name="early", versions=[], live_at=first - timedelta(days=1))
    Patch.objects.create(name="late", versions=[], live_at=middle)
    found = statistics._patch_rating_distributions({}, None)
    spans = {
        "early": (first.date() - timedelta(days=1), middle.date()),
        "late": (middle.date(), flagged_league.date() + timedelta(days=1)),
    }
    for name, (start, end) in spans.items():
        last = (
            RatingSnapshot.objects.filter(~rules.flagged("rating__player__"))
            .filter(day__gte=start, day__lt=end)
            .order_by("rating_id", "-day")
            .distinct("rating_id")
            .values_list("value", "deviation")
        )
        expected = Counter(
            int(value // statistics.RATING_BIN_WIDTH)
            for value, deviation in last
            if rules.is_settled(deviation)
        )
        shown = {
            int(row["from"]) // statistics.RATING_BIN_WIDTH: row["count"]
            for row in found[name]["bins"]
            if row["count"]
        }
        assert shown == expected and sum(expected.values()) > 0
