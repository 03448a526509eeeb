"""The rating pipeline against the real database: reference numbers, rules, exactly once."""

from __future__ import annotations

import math
import random
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import IntegrityError, transaction

from matches.models import CharacterMatchup, IntegrityFlag, Match, MatchRating, PendingMatch
from matches.params import glicko_params
from matches.ratings import glicko
from matches.ratings.matchup_offset import expected
from matches.replays.readers import iter_replay_payloads
from matches.services import bulk, character_matchups
from matches.services.character_matchups import rebuild_character_matchups
from matches.services.file_import import file_import_source
from matches.services.ingest import store_replays
from matches.services.rating.decay import decay_all_ratings
from matches.services.rating.incremental import rate_pending_matches
from matches.services.rating.recompute import recompute_all_ratings
from matches.services.rating.storage import matches_in_order
from players.formatting import uncertainty_text
from players.models import Character, Player, PlayerMatchup, Rating, RatingSnapshot
from players.selectors.rankings import ranked_count, rating_ranks, top_rated_keys
from tests import databases
from tests.factories import BASE_TIME, PlayerFactory, RatingFactory, random_league, replay
from tests.matches.test_character_matchups import character_matchup_rows
from tests.ratings.reference import COUNTED

# The reference numbers hold under the reference formulas (the one-chance model has its
# own tests: tests/matches/test_one_chance.py).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("reference_formulas")]

A, B, C = "100000000000000001", "100000000000000002", "100000000000000003"


def store(replays):
    return store_replays(source=file_import_source(), replays=iter_replay_payloads(replays))


def rating(player_id: str, code: str = "SO") -> Rating:
    return Rating.objects.get(player_id=player_id, character__code=code)


def seed_rating(player_id: str, value: float, deviation: float, code: str = "SO") -> Rating:
    """A rating whose decay clock stands at game 1's time, so that game sees it unchanged."""
    player = PlayerFactory(id=player_id)
    return RatingFactory(
        player=player,
        character=Character.objects.get(code=code),
        value=value,
        deviation=deviation,
        last_decay_at=BASE_TIME + timedelta(minutes=1),
    )


def test_first_game_between_new_players_gives_the_reference_numbers():
    store([replay(1, A, B, winner=1, characters=("SO", "SO"))])
    run = rate_pending_matches()
    assert (run.rated, run.counted) == (1, 1)
    assert rating(A).value == pytest.approx(1662.2120, abs=1e-3)
    assert rating(A).deviation == pytest.approx(290.2305, abs=1e-3)
    assert rating(B).value == pytest.approx(1337.7880, abs=1e-3)
    result = MatchRating.objects.get()
    assert (result.value_a, result.deviation_a, result.counted) == (1500.0, 350.0, True)
    assert result.change_a == pytest.approx(162.2120, abs=1e-3)
    assert result.change_b == pytest.approx(-162.2120, abs=1e-3)
    assert not PendingMatch.objects.exists()
    assert (rating(A).wins, rating(A).losses, rating(B).wins, rating(B).losses) == (1, 0, 0, 1)


@pytest.mark.parametrize(
    ("a_before", "b_before", "a_won", "a_after", "b_after"),
    [game[:5] for game in COUNTED[1:]],
)
def test_reference_table_through_the_database(a_before, b_before, a_won, a_after, b_after):
    seed_rating(A, *a_before)
    seed_rating(B, *b_before)
    store([replay(1, A, B, winner=1 if a_won else 2, characters=("SO", "SO"))])
    rate_pending_matches()
    assert (rating(A).value, rating(A).deviation) == pytest.approx(a_after, abs=1e-3)
    assert (rating(B).value, rating(B).deviation) == pytest.approx(b_after, abs=1e-3)


def test_both_sides_are_decayed_to_the_game_time_first():
    seed_rating(A, 1500, 50)
    Rating.objects.filter(player_id=A).update(
        last_decay_at=BASE_TIME - timedelta(hours=720, minutes=29)
    )
    seed_rating(B, 1500, 300)
    Rating.objects.filter(player_id=B).update(
        last_decay_at=BASE_TIME - timedelta(hours=720, minutes=29)
    )
    store([replay(1, A, B, characters=("SO", "SO"))])
    rate_pending_matches()
    result = MatchRating.objects.get()
    # 720 idle hours grow each deviation before the game, the deviations the game was
    # rated from (with the reference c = 3.1: 97.0526 and 311.3185); computed from the settings.
    params = glicko_params()
    assert result.deviation_a == pytest.approx(glicko.decayed_deviation(50, 720, params), abs=1e-3)
    assert result.deviation_b == pytest.approx(glicko.decayed_deviation(300, 720, params), abs=1e-3)
    assert result.deviation_a > 50 and result.deviation_b > 300
    # The half hour left over carries to the next decay.
    assert rating(A).last_decay_at == BASE_TIME - timedelta(minutes=29)


def test_lopsided_games_between_established_players_are_stored_but_do_not_count():
    seed_rating(A, 2000, 30)
    seed_rating(B, 1400, 30)
    store(
        [
            replay(1, A, B, characters=("SO", "SO")),
            replay(2, A, B, winner=2, characters=("SO", "SO")),
        ]
    )
    run = rate_pending_matches()
    assert (run.rated, run.counted) == (2, 0)
    assert rating(A).value == 2000 and rating(A).wins == 10
    assert list(MatchRating.objects.values_list("counted", "change_a")) == [(False, 0.0)] * 2


def test_an_uncertain_pair_counts_even_when_lopsided():
    seed_rating(A, 2000, 100)
    seed_rating(B, 1400, 30)  # rms of 100 and 30 is 73.8 >= 50
    store([replay(1, A, B, characters=("SO", "SO"))])
    assert rate_pending_matches().counted == 1


@pytest.mark.parametrize("flag", ["cheater", "hidden"])
def test_games_of_cheaters_and_hidden_players_never_move_ratings(flag):
    store([replay(1, A, B), replay(2, A, C)])
    Player.objects.filter(id=A).update(**{flag: True})
    run = rate_pending_matches()
    assert (run.rated, run.counted) == (2, 0)
    assert rating(B, "KY").value == 1500 and rating(B, "KY").losses == 0
    assert MatchRating.objects.filter(counted=False).count() == 2


def test_peaks_and_best_wins_count_only_below_the_low_deviation():
    seed_rating(A, 1500, 60)
    seed_rating(B, 1600, 60)
    seed_rating(C, 1700, 200)
    store(
        [
            replay(1, A, B, characters=("SO", "SO")),  # beats an established 1600
            replay(2, A, C, characters=("SO", "SO")),  # beats an uncertain 1700: not a best win
        ]
    )
    rate_pending_matches()
    a = rating(A)
    assert a.best_win_value == pytest.approx(1600)
    assert a.best_win_opponent_id == B and a.best_win_at == BASE_TIME + timedelta(minutes=1)
    assert a.peak_value == pytest.approx(a.value) and a.peak_deviation < 75
    c = rating(C)
    assert c.peak_value is None  # its deviation stayed above 75


def test_snapshots_and_matchups_follow_counted_games(settings):
    store(
        [
            replay(1, A, B, characters=("SO", "KY")),
            replay(2, A, B, characters=("SO", "KY")),
            replay(24 * 60 + 1, A, B, winner=2, characters=("SO", "KY")),
        ]
    )
    rate_pending_matches()
    a = rating(A)
    snapshots = list(RatingSnapshot.objects.filter(rating=a).order_by("day"))
    assert [s.day for s in snapshots] == [BASE_TIME.date(), BASE_TIME.date() + timedelta(days=1)]
    assert snapshots[-1].value == pytest.approx(a.value)
    matchup = PlayerMatchup.objects.get(rating=a, opponent_character__code="KY")
    assert (matchup.wins, matchup.losses) == (2, 1)
    # Sums over the counted games of A's pre-game probabilities from the ratings alone.
    before = list(
        MatchRating.objects.order_by("match__played_at").values_list("value_a", "value_b")
    )
    probabilities = [expected(value_a - value_b) for value_a, value_b in before]
    assert probabilities[0] == 0.5 and probabilities[1] > 0.5
    assert matchup.expected_wins == pytest.approx(sum(probabilities))
    assert matchup.information == pytest.approx(sum(p * (1 - p) for p in probabilities))
    theirs = PlayerMatchup.objects.get(rating=rating(B, "KY"), opponent_character__code="SO")
    assert (theirs.wins, theirs.losses) == (1, 2)
    assert theirs.expected_wins == pytest.approx(3 - matchup.expected_wins)
    assert theirs.information == pytest.approx(matchup.information)
    # Character matchups are rebuilt by the refresh, not per game, from games between
    # settled ratings only (issue 35): these new ratings' games move none, until the
    # settled threshold takes them in.
    assert not CharacterMatchup.objects.exists()
    rebuild_character_matchups()
    assert not CharacterMatchup.objects.filter(bracket="all", wins__gt=0).exists()
    assert CharacterMatchup.objects.exclude(bracket="all").count() == 0  # nobody is ranked yet
    settings.RATING_LOW_DEVIATION = settings.RATING_INITIAL_DEVIATION + 1
    rebuild_character_matchups()
    sol_vs_ky = CharacterMatchup.objects.get(
        bracket="all", character__code="SO", opponent__code="KY"
    )
    ky_vs_sol = CharacterMatchup.objects.get(
        bracket="all", character__code="KY", opponent__code="SO"
    )
    assert (sol_vs_ky.wins, sol_vs_ky.losses, ky_vs_sol.wins, ky_vs_sol.losses) == (2, 1, 1, 2)
    assert sol_vs_ky.expected_wins == pytest.approx(matchup.expected_wins)
    assert sol_vs_ky.offset == pytest.approx(-ky_vs_sol.offset)


def test_every_match_is_rated_exactly_once():
    store([replay(n, A, B) for n in range(1, 30)])
    assert rate_pending_matches(batch_size=7).rated == 29
    assert rate_pending_matches().rated == 0
    store([replay(n, A, B) for n in range(25, 40)])
    assert rate_pending_matches().rated == 10
    assert rating(A).wins == 39


# Hours after random_league's last game (74 h after its first): every rating has
# decayed, most enough to show.
RECOMPUTED_AT = BASE_TIME + timedelta(hours=78, minutes=10)


def state() -> dict:
    return {
        "ratings": sorted(
            Rating.objects.values_list(
                "player_id",
                "character_id",
                "value",
                "deviation",
                "wins",
                "losses",
                "peak_value",
                "best_win_value",
                "last_decay_at",
            )
        ),
        "matches": sorted(
            MatchRating.objects.values_list(
                "match_id", "counted", "value_a", "deviation_a", "change_a", "change_b"
            )
        ),
        "snapshots": sorted(
            RatingSnapshot.objects.values_list(
                "rating__player_id", "rating__character_id", "day", "value"
            )
        ),
        "player_matchups": sorted(
            PlayerMatchup.objects.values_list(
                "rating__player_id",
                "rating__character_id",
                "opponent_character_id",
                "wins",
                "losses",
                "expected_wins",
                "information",
            )
        ),
        "character_matchups": character_matchup_rows(),
    }


def assert_same_state(left: dict, right: dict) -> None:
    assert left.keys() == right.keys()
    for key in left:
        assert len(left[key]) == len(right[key]), key
        for row_left, row_right in zip(left[key], right[key], strict=True):
            for v_left, v_right in zip(row_left, row_right, strict=True):
                if isinstance(v_left, float):
                    assert v_left == pytest.approx(v_right, abs=1e-9), key
                else:
                    assert v_left == v_right, key


@pytest.mark.parametrize("batch_size", [1, 3, 17, 1000])
def test_recompute_equals_incremental_rating_in_any_batch_size(batch_size):
    """The compiled recompute against the ledgers of incremental rating, its oracle."""
    store(random_league(120))
    rate_pending_matches(batch_size=batch_size)
    # As a recompute does after the ratings: decay them up to its time, the matchups.
    assert 0 < decay_all_ratings(RECOMPUTED_AT) < Rating.objects.count()
    rebuild_character_matchups()
    incremental = state()
    recompute_all_ratings(chunk_size=50, now=RECOMPUTED_AT)
    assert_same_state(incremental, state())


@pytest.mark.parametrize("batch_size", [1, 17])
def test_recompute_equals_incremental_rating_when_flags_give_points_back(settings, batch_size):
    """The same, with the early-surprise test flagging coin-flip records (a low bar) and
    the fast track giving the flagged ratings' opponents their points back: incremental
    rating reads the young games already stored, the recompute kept them in memory."""
    settings.RATING_LOW_DEVIATION = 250.0
    settings.INTEGRITY_ALT_WINDOW = 8
    settings.INTEGRITY_ALT_MIN_GAMES = 2
    settings.INTEGRITY_ALT_THRESHOLD = settings.INTEGRITY_FAST_TRACK_THRESHOLD = 0.5
    settings.INTEGRITY_FAST_TRACK = settings.INTEGRITY_GIVE_BACK = True
    store(random_league(120))
    rate_pending_matches(batch_size=batch_size)
    assert IntegrityFlag.objects.filter(kind="alt").count() >= 3
    # A rating moves by its games' changes and by what it is given back: some were.
    moved = {key: 0.0 for key in Rating.objects.values_list("player_id", "character_id")}
    for pa, ca, pb, cb, change_a, change_b in Match.objects.filter(
        rating__counted=True
    ).values_list(
        "player_a_id", "character_a_id", "player_b_id", "character_b_id",
        "rating__change_a", "rating__change_b",
    ):  # fmt: skip
        moved[pa, ca] += change_a
        moved[pb, cb] += change_b
    start = glicko_params().initial_rating
    assert any(
        abs(value - start - moved[player, character]) > 1e-6
        for player, character, value in Rating.objects.values_list(
            "player_id", "character_id", "value"
        )
    )
    decay_all_ratings(RECOMPUTED_AT)
    rebuild_character_matchups()
    incremental = state()
    recompute_all_ratings(chunk_size=50, now=RECOMPUTED_AT)
    assert_same_state(incremental, state())


def test_a_refresh_right_after_a_recompute_has_no_decay_left_to_write():
    store(random_league(60))
    recompute_all_ratings(now=RECOMPUTED_AT)
    assert decay_all_ratings(RECOMPUTED_AT) == 0
    assert decay_all_ratings(RECOMPUTED_AT + timedelta(hours=30)) > 0


def test_recompute_after_marking_a_cheater_rebuilds_everyone_without_their_games():
    store(random_league(60))
    rate_pending_matches()
    cheater = Player.objects.order_by("id").first()
    Player.objects.filter(id=cheater.id).update(cheater=True)
    recompute_all_ratings()
    assert not Match.objects.filter(rating__counted=True, player_a=cheater).exists()
    assert not Match.objects.filter(rating__counted=True, player_b=cheater).exists()
    assert MatchRating.objects.count() == Match.objects.count() == 60
    assert not Match.objects.pending().exists()


def test_ranks_skip_uncertain_hidden_and_cheating_players(monkeypatch):
    ranked = [seed_rating(str(200 + n), 1500 + n * 10, 50) for n in range(4)]
    seed_rating("300", 2500, 80)  # too uncertain
    Player.objects.filter(id=ranked[3].player_id).update(hidden=True)
    Player.objects.filter(id=ranked[2].player_id).update(cheater=True)
    assert ranked_count() == 2
    second = rating_ranks(Rating.objects.select_related("player").get(id=ranked[1].id))
    assert (second.overall, second.character, second.ranked) == (1, 1, 2)
    assert rating_ranks(Rating.objects.select_related("player").get(id=ranked[0].id)).overall == 2
    for unranked in (rating("300"), *ranked[2:]):
        assert rating_ranks(Rating.objects.select_related("player").get(id=unranked.id)) is None
    assert top_rated_keys(10) == {(ranked[1].player_id, 0): 1, (ranked[0].player_id, 0): 2}
    # Counted up to a bound, the flagged ratings ahead in the index never count towards it.
    for per_rank, shown in ((1, (1, True)), (2, (2, False))):
        monkeypatch.setattr("players.selectors.rankings.RANKED_COUNTED_PER_RANK", per_rank)
        second = rating_ranks(Rating.objects.select_related("player").get(id=ranked[1].id))
        assert (second.ranked, second.more_ranked) == shown


def test_recompute_fills_the_top_brackets_from_the_new_ranks():
    rng = random.Random(3)
    games = [
        replay(n, A, B, winner=rng.choice([1, 2]), characters=("SO", "KY")) for n in range(1, 80)
    ]
    store(games)
    recompute_all_ratings()
    top = top_rated_keys(1)
    assert top[(A, rating(A).character_id)] == top[(B, rating(B, "KY").character_id)] == 1
    top100 = CharacterMatchup.objects.get(
        bracket="top100", character__code="SO", opponent__code="KY"
    )
    everyone = CharacterMatchup.objects.get(
        bracket="all", character__code="SO", opponent__code="KY"
    )
    # Of the 79 games, those between settled ratings (issue 35).
    settled = MatchRating.objects.filter(
        counted=True,
        deviation_a__lt=settings.RATING_LOW_DEVIATION,
        deviation_b__lt=settings.RATING_LOW_DEVIATION,
    ).count()
    assert top100.wins + top100.losses == everyone.wins + everyone.losses == settled > 40


def test_periodic_decay_grows_idle_deviations_from_the_last_decay():
    seed_rating(A, 1500, 50)
    Rating.objects.filter(player_id=A).update(last_decay_at=BASE_TIME)
    assert decay_all_ratings(BASE_TIME + timedelta(hours=720, minutes=20)) == 1
    # sqrt(50² + 720 c²): 97.0526 with the reference c = 3.1; computed from the settings.
    expected = math.sqrt(50**2 + 720 * settings.RATING_DECAY_CONSTANT**2)
    assert rating(A).deviation == pytest.approx(expected, abs=1e-3) and expected > 50
    assert rating(A).last_decay_at == BASE_TIME + timedelta(hours=720)


def test_hourly_decay_writes_a_rating_only_when_its_shown_uncertainty_changes():
    seed_rating(A, 1500, 50)
    Rating.objects.filter(player_id=A).update(last_decay_at=BASE_TIME)
    c = settings.RATING_DECAY_CONSTANT
    written = []
    for hour in range(1, 201):
        written.append(decay_all_ratings(BASE_TIME + timedelta(hours=hour)))
        # The deviation pages read always shows what the exact decay shows.
        exact = math.sqrt(50**2 + hour * c**2)
        assert uncertainty_text(rating(A).deviation) == uncertainty_text(exact), hour
    # Far fewer writes than hours (one per point of ±), none of them for nothing.
    assert 0 < sum(written) == math.floor(2 * math.sqrt(50**2 + 200 * c**2)) - 100 < 100
    # Unwritten hours are not lost: the next write holds every period since the start.
    decay_all_ratings(BASE_TIME + timedelta(hours=400))
    assert rating(A).deviation == pytest.approx(math.sqrt(50**2 + 400 * c**2), rel=1e-12)
    assert rating(A).last_decay_at == BASE_TIME + timedelta(hours=400)


def test_decay_across_the_ranking_threshold_is_written_at_once(settings):
    settings.RATING_LOW_DEVIATION = 70.3  # a threshold no ± boundary lines up with
    seed_rating(A, 1500, 70.29)
    Rating.objects.filter(player_id=A).update(last_decay_at=BASE_TIME)
    assert decay_all_ratings(BASE_TIME + timedelta(hours=1)) == 1
    assert rating(A).deviation > 70.3


def test_matches_in_order_pages_through_games_sharing_a_moment_once_each():
    moment = BASE_TIME + timedelta(hours=1)
    players = [str(100000000000000000 + n) for n in range(12)]
    store(
        [replay(n, players[n], players[n + 6], played_at=moment) for n in range(6)]
        + [replay(10 + n, players[n], players[n + 1]) for n in range(5)]
    )
    expected = list(Match.objects.order_by("played_at", "id").values_list("id", flat=True))
    for chunk_size in (1, 2, 4):
        pages = matches_in_order(Match.objects.all(), chunk_size)
        paged = [game.match_id for games in pages for game in games]
        assert paged == expected


def test_recompute_builds_back_every_index_and_constraint_it_set_aside():
    tables = (MatchRating, RatingSnapshot, PlayerMatchup, Rating)
    before = databases.index_definitions(*tables)
    assert len(before) >= 8
    store(random_league(40))
    recompute_all_ratings(chunk_size=7)
    assert databases.index_definitions(*tables) == before
    # Ratings it numbered itself (1 to n) are followed by ratings the live site numbers.
    count = Rating.objects.count()
    store([replay(n, A, "100000000000000999") for n in range(5000, 5003)])
    rate_pending_matches()
    assert list(
        Rating.objects.filter(id__lte=count).order_by("id").values_list("id", flat=True)
    ) == list(range(1, count + 1))
    assert Rating.objects.filter(id__gt=count).exists()


def test_a_duplicate_loaded_without_indexes_fails_the_rebuild_and_the_load():
    store(random_league(10))
    recompute_all_ratings()
    snapshot = RatingSnapshot.objects.first()
    count = RatingSnapshot.objects.count()
    with (
        pytest.raises(IntegrityError),
        transaction.atomic(),
        bulk.indexes_built_after([RatingSnapshot]),
    ):
        bulk.insert(
            RatingSnapshot,
            ("rating_id", "day", "value", "deviation"),
            [(snapshot.rating_id, snapshot.day, 1.0, 2.0)],
        )
    assert RatingSnapshot.objects.count() == count


@pytest.mark.parametrize("size", [6, 9])
def test_a_recompute_draws_the_proportional_bracket_as_the_refresh_does(monkeypatch, size):
    """A bracket size small enough that the 900 games' players rank past it: the compiled
    recompute keeps the same games in the proportional bracket as the SQL rebuild."""
    monkeypatch.setattr(character_matchups, "PROPORTIONAL_BRACKET_SIZE", size)
    store(random_league(900))
    rate_pending_matches()
    decay_all_ratings(RECOMPUTED_AT)
    rebuild_character_matchups()
    incremental = state()

    def games(bracket: str) -> int:
        rows = incremental["character_matchups"]
        return sum(wins + losses for name, _, _, wins, losses, *_ in rows if name == bracket)

    assert 0 < games("proportional") < games("top1000")
    recompute_all_ratings(chunk_size=50, now=RECOMPUTED_AT)
    assert_same_state(incremental, state())
