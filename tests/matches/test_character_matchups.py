"""Matchup estimates (docs/rating-model.md#matchups): player matchup sums kept by the rating
ledger, character matchups rebuilt from the matches table, both order-independent."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.utils import timezone

from matches.models import CharacterMatchup, CharacterMatchupSum, Match, MatchRating, Patch
from matches.ratings.ledger import Game, GameResult, MatchupLedger
from matches.ratings.matchup_offset import DifferenceBin, expected, fit_offset
from matches.selectors.matchups import ESTIMATE_COLUMNS, matchup_matrix
from matches.services.character_matchups import (
    bracket_groups,
    forget_matchup_sums,
    rebuild_character_matchups,
)
from matches.services.patches import assign_patches, changing_patches, reassign_after_change
from matches.services.rating.recompute import recompute_all_ratings
from matches.tasks import reassign_patches
from players.models import Character, Player
from players.selectors.rankings import top_rated_keys
from tests.factories import BASE_TIME, MatchFactory, PlayerFactory, RatingFactory, rate_match

pytestmark = pytest.mark.django_db

PRIOR = 100.0


def code_id(code: str) -> int:
    return Character.objects.get(code=code).id


def counted_game(
    player_a: Player,
    player_b: Player,
    value_a: float,
    value_b: float,
    *,
    a_won: bool,
    characters: tuple[str, str] = ("SO", "KY"),
    counted: bool = True,
) -> Match:
    """A stored match with its rating: side A rated `value_a` before it, B `value_b`."""
    match = MatchFactory(
        player_a=player_a,
        player_b=player_b,
        character_a=Character.objects.get(code=characters[0]),
        character_b=Character.objects.get(code=characters[1]),
        winner=Match.Winner.A if a_won else Match.Winner.B,
    )
    rate_match(match, value_a, value_b, counted=counted)
    return match


def character_matchup_rows() -> list[tuple]:
    return sorted(CharacterMatchup.objects.values_list("bracket", *ESTIMATE_COLUMNS))


def assert_same_rows(left: list[tuple], right: list[tuple]) -> None:
    assert len(left) == len(right) > 0
    for row_left, row_right in zip(left, right, strict=True):
        assert row_left[:5] == row_right[:5]  # bracket, pair, wins, losses
        assert row_left[5:] == pytest.approx(row_right[5:], rel=1e-9, abs=1e-9)


def test_character_matchups_do_not_depend_on_the_order_of_games():
    rng = random.Random(5)
    players = [PlayerFactory() for _ in range(6)]
    specs = [
        (
            *rng.sample(players, 2),
            rng.uniform(1200, 1800),
            rng.uniform(1200, 1800),
            rng.random() < 0.6,
            rng.choice([("SO", "KY"), ("KY", "SO"), ("SO", "MA"), ("MA", "KY")]),
        )
        for _ in range(150)
    ]

    def store_and_rebuild(order: list[tuple]) -> list[tuple]:
        Match.objects.all().delete()
        forget_matchup_sums()  # the games rewritten, as by a recompute
        for a, b, value_a, value_b, a_won, characters in order:
            counted_game(a, b, value_a, value_b, a_won=a_won, characters=characters)
        rebuild_character_matchups()
        return character_matchup_rows()

    in_order = store_and_rebuild(specs)
    shuffled = specs[:]
    rng.shuffle(shuffled)
    assert_same_rows(in_order, store_and_rebuild(shuffled))


def test_the_rebuild_fits_each_pair_from_both_sides_and_mirrors_it():
    sol, ky = PlayerFactory(), PlayerFactory()
    counted_game(sol, ky, 1700, 1500, a_won=True)
    counted_game(sol, ky, 1700, 1500, a_won=False)
    # The same pairing stored with Ky as side A: a Sol win, from Sol's side at +200.
    counted_game(ky, sol, 1500, 1700, a_won=False, characters=("KY", "SO"))
    counted_game(sol, ky, 1500, 1500, a_won=True, characters=("SO", "SO"))  # a mirror
    counted_game(sol, ky, 1500, 1500, a_won=True, counted=False)  # never counted
    assert rebuild_character_matchups() == 2  # SO vs KY both ways; only the "all" bracket

    sol_vs_ky = CharacterMatchup.objects.get(character__code="SO", opponent__code="KY")
    ky_vs_sol = CharacterMatchup.objects.get(character__code="KY", opponent__code="SO")
    expected_fit = fit_offset([DifferenceBin(200.0, 3, 2)], PRIOR)
    assert (sol_vs_ky.wins, sol_vs_ky.losses) == (ky_vs_sol.losses, ky_vs_sol.wins) == (2, 1)
    assert sol_vs_ky.expected_wins == pytest.approx(3 * expected(200))
    assert ky_vs_sol.expected_wins == pytest.approx(3 - 3 * expected(200))
    assert sol_vs_ky.offset == pytest.approx(expected_fit.value)
    assert ky_vs_sol.offset == pytest.approx(-expected_fit.value)
    assert sol_vs_ky.standard_error == ky_vs_sol.standard_error
    # 2 wins of 3 is fewer than 3 x 76% expected at +200: Sol did worse than its players.
    assert sol_vs_ky.offset < 0


def test_mirrored_cells_sum_to_one_and_a_character_against_itself_is_even(league):
    for bracket in ("all", "top1000"):
        matrix = matchup_matrix(bracket)
        cells = {
            (row.character.id, cell.opponent.id): cell for row in matrix.rows for cell in row.cells
        }
        played = 0
        for (x, y), cell in cells.items():
            if x == y:
                assert cell.mirror and cell.probability == 0.5
            elif cell.probability is not None:
                played += 1
                assert cell.probability + cells[(y, x)].probability == pytest.approx(1.0)
                low, high = cell.estimate.interval
                mirror_low, mirror_high = cells[(y, x)].estimate.interval
                assert low + mirror_high == pytest.approx(1.0)
                assert high + mirror_low == pytest.approx(1.0)
        assert played > (100 if bracket == "all" else 0)


def test_a_cell_sides_with_its_wins_against_expectation(league):
    rows = CharacterMatchup.objects.filter(bracket="all")
    decided = [m for m in rows if abs(m.wins - m.expected_wins) > 0.5]
    assert len(decided) > 100
    for m in decided:
        assert (m.offset > 0) == (m.wins > m.expected_wins), m


@pytest.mark.parametrize("wins", [0, 3, 7, 9])
def test_a_losing_record_at_equal_ratings_never_shows_above_even(client, wins):
    sol, ky = PlayerFactory(), PlayerFactory()
    for n in range(20):
        rating = 1400 + 20 * n  # equal on both sides in every game, at many levels
        counted_game(sol, ky, rating, rating, a_won=n < wins)
    rebuild_character_matchups()
    sol_row = next(row for row in matchup_matrix("all").rows if row.character.code == "SO")
    cell = next(cell for cell in sol_row.cells if cell.opponent.code == "KY")
    assert (cell.estimate.wins, cell.estimate.losses) == (wins, 20 - wins)
    assert cell.probability < 0.5
    assert cell.estimate.expected_wins == pytest.approx(10.0)


def test_top_brackets_hold_games_between_players_ranked_that_high_now(settings):
    settings.RATING_LOW_DEVIATION = 75.0
    best = RatingFactory(value=2000, deviation=50).player
    good_ky = RatingFactory(value=1900, deviation=50, character=Character.objects.get(code="KY"))
    unsure_ky = RatingFactory(value=2100, deviation=90, character=Character.objects.get(code="KY"))
    assert set(top_rated_keys(1)) == {
        (best.id, code_id("SO")),
        (good_ky.player_id, code_id("KY")),
    }
    counted_game(best, good_ky.player, 2000, 1900, a_won=True)
    counted_game(best, unsure_ky.player, 2000, 2100, a_won=True)
    rebuild_character_matchups()
    games = {
        bracket: wins + losses
        for bracket, wins, losses in CharacterMatchup.objects.filter(
            character__code="SO", opponent__code="KY"
        ).values_list("bracket", "wins", "losses")
    }
    # Sol has a third of the games, Ky two thirds: both rank within 1,000 x their share.
    assert games == {"all": 2, "top1000": 1, "top100": 1, "proportional": 1}


def test_player_matchup_sums_do_not_depend_on_the_order_of_games():
    rng = random.Random(11)
    players = [str(n) for n in range(5)]
    pairs = []
    for n in range(300):
        a, b = rng.sample(players, 2)
        value_a, value_b = rng.uniform(1200, 1800), rng.uniform(1200, 1800)
        game = Game(n, n * 60.0, a, rng.randrange(3), b, rng.randrange(3), rng.random() < 0.5)
        result = GameResult(n, value_a, 60, value_b, 60, value_a, 60, value_b, 60, n % 7 != 0, 0.5)
        pairs.append((game, result))

    def sums(order: list[tuple[Game, GameResult]]) -> dict:
        ledger = MatchupLedger()
        for game, result in order:
            ledger.record(game, result)
        return {
            key: (m.wins, m.losses, m.expected_wins, m.information)
            for key, m in ledger.player_matchups.items()
        }

    in_order = sums(pairs)
    rng.shuffle(pairs)
    shuffled = sums(pairs)
    assert in_order.keys() == shuffled.keys() and len(in_order) > 20
    for key, row in in_order.items():
        assert row == pytest.approx(shuffled[key], rel=1e-12)
    # Every counted game is in two sums, once from each side.
    assert sum(w + lost for w, lost, *_ in in_order.values()) == 2 * sum(
        r.counted for _, r in pairs
    )


def test_each_bracket_takes_the_games_of_the_tiers_it_holds_merged_per_bin():
    """The whole field is every game's sums as they are; a top-N bracket merges the
    tiers (100: both players in the top 100, 1000: in the top 1000) it holds, per bin,
    and the proportional bracket the groups between two of its members:
    (X, Y, tier, proportional, bin, games, wins, sum of differences, expected wins)."""
    everyone = [(1, 2, 3.0, 8, 3, 160.0, 3.5), (1, 2, 4.0, 1, 1, 30.0, 0.6)]
    tiered = [
        (1, 2, 1000, True, 3.0, 2, 2, 40.0, 1.0),
        (1, 2, 100, False, 3.0, 2, 0, 20.0, 0.5),
        (1, 2, 100, True, 4.0, 1, 1, 30.0, 0.6),
    ]
    groups = bracket_groups(everyone, tiered)
    assert groups[CharacterMatchup.Bracket.ALL] == [
        (1, 2, 8, 3, 160.0 / 8, 3.5),
        (1, 2, 1, 1, 30.0, 0.6),
    ]
    assert groups[CharacterMatchup.Bracket.TOP1000] == [
        (1, 2, 4, 2, 60.0 / 4, 1.5),
        (1, 2, 1, 1, 30.0, 0.6),
    ]
    assert groups[CharacterMatchup.Bracket.TOP100] == [
        (1, 2, 2, 0, 10.0, 0.5),
        (1, 2, 1, 1, 30.0, 0.6),
    ]
    assert groups[CharacterMatchup.Bracket.PROPORTIONAL] == [
        (1, 2, 2, 2, 20.0, 1.0),
        (1, 2, 1, 1, 30.0, 0.6),
    ]


def patch_matchup_rows() -> list[tuple]:
    return sorted(
        CharacterMatchup.objects.values_list("bracket", "patch_id", *ESTIMATE_COLUMNS),
        key=lambda row: (row[0], row[1] or 0, *row[2:4]),
    )


def test_the_kept_sums_give_what_summing_every_game_afresh_gives(
    monkeypatch, django_capture_on_commit_callbacks
):
    """Each rebuild adds the games rated since its mark to the kept sums: after batches,
    games stored late into an earlier patch, games rated before their patch was placed,
    a player unrated, a recompute and changes to the patches (with a rebuild between the
    change and its games' re-placement), its tables against a rebuild from scratch."""
    rng = random.Random(12)
    players = [PlayerFactory() for _ in range(8)]
    Patch.objects.create(name="1.0", versions=[], live_at=BASE_TIME)
    Patch.objects.create(name="1.1", versions=[], live_at=BASE_TIME + timedelta(days=10))
    pairs = [("SO", "KY"), ("KY", "SO"), ("SO", "MA"), ("MA", "KY")]

    def batch(first_day: float) -> None:
        """60 counted games from `first_day` on, rated now."""
        ids = []
        for n in range(60):
            a, b = rng.sample(players, 2)
            match = counted_game(
                a,
                b,
                rng.uniform(1300, 1700),
                rng.uniform(1300, 1700),
                a_won=rng.random() < 0.6,
                characters=rng.choice(pairs),
            )
            Match.objects.filter(pk=match.pk).update(
                played_at=BASE_TIME + timedelta(days=first_day, minutes=97 * n)
            )
            ids.append(match.pk)
        MatchRating.objects.filter(match_id__in=ids).update(rated_at=timezone.now())

    def rebuilt() -> list[tuple]:
        rebuild_character_matchups()
        return patch_matchup_rows()

    def from_scratch() -> list[tuple]:
        forget_matchup_sums()
        return rebuilt()

    def rebuilt_as_afresh() -> list[tuple]:
        incremental = rebuilt()
        kept = sorted(CharacterMatchupSum.objects.values_list("patch", "games"))
        assert_same_rows_in_patches(incremental, from_scratch())
        return kept

    batch(0)
    assign_patches()
    first = rebuilt_as_afresh()
    batch(6)  # into both patches
    assign_patches()
    assert rebuilt_as_afresh() != first
    batch(1)  # late: played in the first patch's days, stored and rated now
    assign_patches()
    rebuilt_as_afresh()

    # Rated before its patch is placed: left out of the whole field's sums until the
    # rebuild after the placement (the top brackets sum their games afresh each time).
    def whole_field(rows: list[tuple]) -> list[tuple]:
        return [row for row in rows if row[0] == CharacterMatchup.Bracket.ALL]

    before = whole_field(patch_matchup_rows())
    batch(12)
    assert whole_field(rebuilt()) == before
    assign_patches()
    rebuilt_as_afresh()
    Player.objects.filter(pk=players[0].pk).update(cheater=True)
    rebuilt_as_afresh()
    recompute_all_ratings()  # its players start afresh: no game between settled ones yet
    batch(3)
    assign_patches()
    rebuilt_as_afresh()
    assert CharacterMatchupSum.objects.filter(patch__gt=0).exists()

    queued: list[dict] = []
    monkeypatch.setattr(reassign_patches, "delay", queued.append)

    def changed(edit: Callable[[], object]) -> None:
        with django_capture_on_commit_callbacks(execute=True), changing_patches():
            edit()
        rebuilt_as_afresh()  # a refresh before the task: the games not moved yet
        # No table of a deleted patch (its key is checked at commit, which a test never
        # reaches).
        tables = set(CharacterMatchup.objects.values_list("patch_id", flat=True))
        assert tables <= {None, *Patch.objects.values_list("id", flat=True)}
        assert reassign_after_change(queued.pop()) > 0
        rebuilt_as_afresh()

    later = Patch.objects.get(name="1.1")
    later.live_at = BASE_TIME + timedelta(days=4)
    changed(later.save)
    changed(later.delete)  # its games keep its id until moved: all time only meanwhile
    assert set(CharacterMatchup.objects.values_list("patch__name", flat=True)) == {None, "1.0"}


def assert_same_rows_in_patches(left: list[tuple], right: list[tuple]) -> None:
    assert len(left) == len(right) > 0
    for row_left, row_right in zip(left, right, strict=True):
        assert row_left[:6] == row_right[:6]  # bracket, patch, pair, wins, losses
        assert row_left[6:] == pytest.approx(row_right[6:], rel=1e-9, abs=1e-9)
