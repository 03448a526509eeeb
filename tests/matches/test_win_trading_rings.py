"""The ring test against the real database (matches.services.win_trading): a planted ring
is flagged for review with its games as evidence; heavy rivals who meet often with mixed
results, and a strong player who beats a weak one as often as the ratings say, are not.

The games are a small league played here with Elo updates (K = 16), so that the stored
chances and rating changes move as a site's do: the ring's thrown games lift the
booster's rating and the chances of its later games with them."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from matches.models import IntegrityFlag, Match, MatchRating
from matches.ratings.win_trading import PairRecord, RingTest
from matches.services.win_trading import (
    _WINDOW_GAMES_SQL,
    find_rings,
    flag_rings,
    pair_records,
)
from players.models import Character
from tests.factories import BASE_TIME, PlayerFactory, ReplaySourceFactory

pytestmark = pytest.mark.django_db

K = 16.0
DAYS = 60


def chance(a: float, b: float) -> float:
    return 1 / (1 + 10 ** ((b - a) / 400))


class League:
    """Players with true skills and Elo ratings (starting at the truth), storing each
    game with its rating as the rating service would."""

    def __init__(self, skills: list[float]) -> None:
        self.players = PlayerFactory.create_batch(len(skills))
        self.skill = {p.pk: s for p, s in zip(self.players, skills, strict=True)}
        self.rating = dict(self.skill)
        self.rng = random.Random(31)
        self.source = ReplaySourceFactory()
        self.characters = (Character.objects.get(code="SO"), Character.objects.get(code="KY"))
        self.matches: list[Match] = []
        self.ratings: list[MatchRating] = []

    def play(self, first, second, moment, first_wins: float | None = None) -> None:
        """One game; `first_wins` the chance the first player wins (by default the truth's)."""
        a, b = sorted((first.pk, second.pk))
        truth = chance(self.skill[a], self.skill[b])
        if first_wins is not None:
            truth = first_wins if a == first.pk else 1 - first_wins
        a_won = self.rng.random() < truth
        shown = chance(self.rating[a], self.rating[b])
        change = K * ((1.0 if a_won else 0.0) - shown)
        match = Match(
            source=self.source,
            source_replay_id=f"g{len(self.matches)}",
            played_at=moment,
            ingested_at=moment,
            player_a_id=a,
            character_a=self.characters[0],
            player_b_id=b,
            character_b=self.characters[1],
            winner=Match.Winner.A if a_won else Match.Winner.B,
        )
        self.matches.append(match)
        self.ratings.append(
            MatchRating(
                match=match,
                rated_at=moment,
                counted=True,
                value_a=self.rating[a],
                deviation_a=60.0,
                change_a=change,
                value_b=self.rating[b],
                deviation_b=60.0,
                change_b=-change,
                chance_a=shown,
            )
        )
        self.rating[a] += change
        self.rating[b] -= change

    def store(self) -> None:
        Match.objects.bulk_create(self.matches)
        MatchRating.objects.bulk_create(self.ratings)


def test_a_ring_is_flagged_and_heavy_rivals_and_a_lopsided_honest_pair_are_not(settings):
    # 300 players: a ring stands out by less than among a site's thousands.
    settings.INTEGRITY_RING_FREQUENCY = 20.0
    rng = random.Random(7)
    skills = [rng.gauss(1500, 150) for _ in range(294)]
    booster, feeder, rival, other_rival = 1500.0, 1500.0, 1600.0, 1600.0
    strong, weak = 1900.0, 1400.0
    league = League([*skills, booster, feeder, rival, other_rival, strong, weak])
    booster, feeder, rival, other_rival, strong, weak = league.players[-6:]
    special = {"ring": [], "rivals": [], "lopsided": []}
    games = 9000
    for n in range(games):
        moment = BASE_TIME + timedelta(seconds=n * DAYS * 86400 // games)
        if n % 150 == 7:  # 60 ring games, the feeder throwing 95% of them
            league.play(booster, feeder, moment, first_wins=0.95)
            special["ring"].append(league.matches[-1])
        elif n % 75 == 3:  # 120 games of two equal rivals
            league.play(rival, other_rival, moment)
            special["rivals"].append(league.matches[-1])
        elif n % 300 == 11:  # 30 games the strong one wins about 95% of, as rated
            league.play(strong, weak, moment)
            special["lopsided"].append(league.matches[-1])
        else:
            first, second = rng.sample(league.players, 2)
            league.play(first, second, moment)
    league.store()
    end = BASE_TIME + timedelta(days=DAYS + 1)
    rivals_won = sum(m.winner == Match.Winner.A for m in special["rivals"])
    assert 0.3 < rivals_won / len(special["rivals"]) < 0.7  # mixed results
    strong_won = sum(
        (m.winner == Match.Winner.A) == (m.player_a_id == strong.pk) for m in special["lopsided"]
    )
    assert strong_won >= 0.8 * len(special["lopsided"])  # one-sided, as the ratings say

    assert flag_rings(end) == 1
    flag = IntegrityFlag.objects.get()
    assert (flag.kind, flag.status, flag.player_id) == ("ring", "open", booster.pk)
    assert flag.partners == [feeder.pk]
    assert sorted(flag.match_ids) == sorted(m.pk for m in special["ring"])
    assert flag.games == len(special["ring"]) and flag.wins >= 0.8 * flag.games
    assert flag.expected_wins < 0.7 * flag.games and flag.probability < 1e-6

    # Run again (the next refresh): the open flag is refreshed, not doubled.
    assert flag_rings(end) == 0 and IntegrityFlag.objects.count() == 1
    # Outside the window the ring's games are not read.
    assert find_rings(BASE_TIME - timedelta(days=1)) == []


def test_pair_records_are_the_counted_games_of_the_window_by_pair():
    """The aggregation (pair_records) against a count over the ORM's rows: only counted,
    rated games played in the window, whatever order they were stored in."""
    league = League([1300.0, 1450.0, 1500.0, 1550.0, 1700.0, 1900.0])
    rng = random.Random(5)
    for n in range(900):
        first, second = rng.sample(league.players, 2)
        league.play(first, second, BASE_TIME + timedelta(minutes=50 * n))  # about 31 days
    since, until = BASE_TIME + timedelta(days=10), BASE_TIME + timedelta(days=20)
    # Stored last (the highest ids): late games played in the window, before it and after.
    for days in (10, 12.5, 19.9, 9.9, 20, 25):
        first, second = rng.sample(league.players, 2)
        league.play(first, second, BASE_TIME + timedelta(days=days))
    for rating in league.ratings[::17]:
        rating.counted = False
    unrated = {match.source_replay_id for match in league.matches[5::23]}
    league.ratings = [r for r in league.ratings if r.match.source_replay_id not in unrated]
    league.store()

    counted = MatchRating.objects.filter(
        counted=True, match__played_at__gte=since, match__played_at__lt=until
    ).select_related("match")
    pairs: dict[tuple[str, str], list[bool]] = {}
    activity: dict[str, int] = {}
    for rating in counted:
        match = rating.match
        pairs.setdefault((match.player_a_id, match.player_b_id), []).append(
            match.winner == Match.Winner.A
        )
        for player in (match.player_a_id, match.player_b_id):
            activity[player] = activity.get(player, 0) + 1
    test = RingTest(min_games=20, min_share=0.6)
    expected = {
        PairRecord(a, b, len(won), sum(won), activity[a], activity[b], len(counted))
        for (a, b), won in pairs.items()
        if len(won) >= test.min_games
        and max(sum(won), len(won) - sum(won)) >= test.min_share * len(won)
    }
    assert 0 < len(expected) < len(pairs)  # some pairs one-sided enough, some not
    assert set(pair_records(since, until, test)) == expected
    after_all = BASE_TIME + timedelta(days=40)
    assert pair_records(after_all, after_all + timedelta(days=30), test) == []  # none there


def _flags() -> dict[str, tuple[list[str], list[int], int]]:
    return {
        f.player_id: (sorted(f.partners), sorted(f.match_ids), f.games)
        for f in IntegrityFlag.objects.all()
    }


def _full_check(now) -> dict[str, tuple[list[str], list[int], int]]:
    return {s.player: (sorted(s.partners), sorted(s.match_ids), s.games) for s in find_rings(now)}


def _window_counts(queries: CaptureQueriesContext) -> int:
    """How many of `queries` counted the window's games (WindowCount)."""
    count = " ".join(_WINDOW_GAMES_SQL.split("WHERE")[0].split())
    return sum(" ".join(query["sql"].split()).startswith(count) for query in queries)


def test_the_refresh_checks_the_new_games_and_flags_what_a_full_check_flags(settings):
    """flag_rings after each batch (only the pairs with games rated since the last check)
    against a full check of the window: a booster's older feeder, with no new game, stays
    among its partners; a ring whose games arrive late (played in the first batch's days)
    is found; a batch without rings opens nothing; after a recompute (every game rated
    anew) the same rings again."""
    settings.INTEGRITY_RING_FREQUENCY = 20.0
    rng = random.Random(11)
    league = League([*(rng.gauss(1500, 150) for _ in range(294)), *([1500.0] * 6)])
    booster, first_feeder, second_feeder, late_booster, late_feeder, _ = league.players[-6:]

    batches = iter(range(4))

    def batch(first_day: int, rings: list[tuple]) -> None:
        label = next(batches)
        league.matches, league.ratings = [], []
        games = 3000
        for n in range(games):
            # A few seconds apart from the other batches' games (a game is its moment's).
            seconds = n * 30 * 86400 // games + label
            moment = BASE_TIME + timedelta(days=first_day, seconds=seconds)
            pair = rings[n % 75] if n % 75 < len(rings) else None
            if pair is not None:
                league.play(*pair, moment, first_wins=0.95)
            else:
                league.play(*rng.sample(league.players[:-6], 2), moment)
        for match in league.matches:
            match.source_replay_id = f"{label}-{match.source_replay_id}"
        for rating in league.ratings:  # rated as they arrive: now
            rating.rated_at = timezone.now()
        league.store()

    batch(0, [(booster, first_feeder)])
    end = BASE_TIME + timedelta(days=31)
    assert flag_rings(end) == 1
    assert _flags() == _full_check(end) and list(_flags()) == [booster.pk]

    # The booster's second feeder in days 30 to 60, once honest games (not played here)
    # have brought its rating back; a ring played in days 0 to 30, stored late.
    league.rating[booster.pk] = league.skill[booster.pk]
    batch(30, [(booster, second_feeder)])
    batch(0, [(late_booster, late_feeder)])
    end = BASE_TIME + timedelta(days=61)
    with CaptureQueriesContext(connection) as queries:
        assert flag_rings(end) == 1  # the late ring; the booster's flag is refreshed
    # The window's count, a pass over its games, once for the new pairs and the
    # beneficiaries' other pairs both.
    assert _window_counts(queries) == 1
    assert _flags() == _full_check(end)
    assert _flags()[booster.pk][0] == sorted([first_feeder.pk, second_feeder.pk])
    assert _flags()[late_booster.pk][0] == [late_feeder.pk]

    batch(60, [])
    before = dict(IntegrityFlag.objects.values_list("player_id", "updated_at"))
    with CaptureQueriesContext(connection) as queries:
        assert flag_rings(BASE_TIME + timedelta(days=91)) == 0
    assert _window_counts(queries) == 0  # no pair near a candidate: not counted at all
    # No ring had a new game: none was judged again, so no flag's evidence was rewritten.
    assert dict(IntegrityFlag.objects.values_list("player_id", "updated_at")) == before

    # A recompute rates every game again: all of them are new to the next check.
    IntegrityFlag.objects.all().delete()
    MatchRating.objects.update(rated_at=timezone.now())
    end = BASE_TIME + timedelta(days=91)
    assert flag_rings(end) == 2
    assert _flags() == _full_check(end) and len(_flags()) == 2
