"""One chance (docs/rating-model.md#one-chance): every chance the site shows, in the calculator,
the history and fair opponents, is the expected score its rating update uses, the matchup of
the two characters included; the points at stake follow from it by the seed's update
formula, written out here on its own (Glickman's Glicko step with E given)."""

from __future__ import annotations

import math
import random

import pytest
from django.utils.html import escape
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from matches.models import CharacterMatchup, Match
from matches.params import glicko_params
from matches.ratings.glicko import chance, win_probability
from matches.selectors.calculator import Contender, win_forecast
from matches.selectors.chances import ChanceModel, chance_model
from matches.selectors.match_history import match_sets
from players.models import Character, Player, Rating
from tests.factories import replay, store_calibration
from tests.fixtures.league import rate_replays
from web.generation import bump_generation

pytestmark = pytest.mark.django_db

Q = math.log(10) / 400
# Sol against Ky: worth 60 points to Sol, known to ±10 (a clear matchup that survives the
# shrinking); May against Ky: 30 ± 200, noise that shrinks to almost nothing.
TABLE = {("SO", "KY"): (60.0, 10.0), ("MA", "KY"): (30.0, 200.0)}


def seed_step(value, deviation, opponent_deviation, score, expected, minimum_deviation):
    """The seed's update with the expected score given: (rating, deviation) after one game."""
    g = 1 / math.sqrt(1 + 3 * Q * Q * opponent_deviation**2 / math.pi**2)
    precision = 1 / deviation**2 + Q * Q * g * g * expected * (1 - expected)
    return (
        value + Q / precision * g * (score - expected),
        max(math.sqrt(1 / precision), minimum_deviation),
    )


@pytest.fixture
def matchup_table(db) -> None:
    store_table()


def store_table() -> None:
    """TABLE as the character matchup table's bracket "all" (both orientations)."""
    CharacterMatchup.objects.all().delete()
    ids = dict(Character.objects.values_list("code", "id"))
    for (x, y), (offset, error) in TABLE.items():
        for character, opponent, sign in ((x, y, 1), (y, x, -1)):
            CharacterMatchup.objects.create(
                bracket=CharacterMatchup.Bracket.ALL,
                character_id=ids[character],
                opponent_id=ids[opponent],
                offset=sign * offset,
                standard_error=error,
            )


def contender(code: str, value: float, deviation: float) -> Contender:
    """A (player, character) rating as the calculator sees a player picked by name: an
    established one (past the rules for young ratings: docs/integrity.md)."""
    character = Character.objects.get(code=code)
    player = Player(id=f"9{random.randrange(10**17):017d}", name="someone")
    return Contender.of(
        Rating(
            player=player,
            character=character,
            value=value,
            deviation=deviation,
            wins=100,
            losses=100,
        )
    )


def test_offsets_are_the_tables_shrunk_by_their_uncertainty(matchup_table):
    chances = chance_model()
    sol, ky, may = (Character.objects.get(code=c).id for c in ("SO", "KY", "MA"))
    # The table's prior from its own spread: the clear cell keeps most of its 60 points,
    # the noisy one almost nothing, and each pair is antisymmetric.
    assert 40 < chances.offset(sol, ky) < 60
    assert abs(chances.offset(may, ky)) < 0.2 * abs(chances.offset(sol, ky))
    assert chances.offset(ky, sol) == -chances.offset(sol, ky)
    assert chances.offset(sol, sol) == 0.0 and chances.offset(sol, may) == 0.0


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    pair=st.sampled_from([("SO", "KY"), ("KY", "SO"), ("MA", "KY"), ("SO", "SO"), ("SO", "MA")]),
    value_a=st.floats(900, 2600),
    value_b=st.floats(900, 2600),
    deviation_a=st.floats(25, 350),
    deviation_b=st.floats(25, 350),
)
def test_the_calculators_points_follow_from_the_chance_it_shows(
    matchup_table, pair, value_a, value_b, deviation_a, deviation_b
):
    a = contender(pair[0], value_a, deviation_a)
    b = contender(pair[1], value_b, deviation_b)
    forecast = win_forecast(a, b)
    minimum = glicko_params().minimum_deviation
    p = forecast.a.win_probability
    assert forecast.b.win_probability == pytest.approx(1 - p)
    if not forecast.counts:
        return
    for side, mine, theirs, expected in ((forecast.a, a, b, p), (forecast.b, b, a, 1 - p)):
        for score, outcome in ((1.0, side.after_win), (0.0, side.after_loss)):
            value, deviation = seed_step(
                mine.value, mine.deviation, theirs.deviation, score, expected, minimum
            )
            assert outcome.value == pytest.approx(value, rel=1e-12)
            assert outcome.deviation == pytest.approx(deviation, rel=1e-12)
    # The ratings alone and the matchup, the two parts the page names.
    assert forecast.a.model_win_probability == pytest.approx(
        win_probability(value_a, deviation_a, value_b, deviation_b)
    )
    expected_offset = chance_model().offset(a.character_id, b.character_id)
    assert forecast.a.chance.offset == expected_offset
    assert (forecast.parts_text != "") == (expected_offset != 0.0)


def test_the_calculator_page_names_both_parts_and_the_calibration(client, db):
    rate_replays(
        [
            replay(n, "100000000000000001", "100000000000000002", characters=("SO", "KY"),
                   winner=1 + n % 2)
            for n in range(6)
        ]
    )  # fmt: skip
    store_table()  # after the refresh, which fits the table from the games
    store_calibration(2.0)
    query = {"a-name": "name-0001", "b-name": "name-0002"}
    html = client.get("/calculator", query).content.decode()
    a = Rating.objects.get(player_id="100000000000000001")
    b = Rating.objects.get(player_id="100000000000000002")
    forecast = win_forecast(Contender.of(a), Contender.of(b))
    assert forecast.a.chance.offset > 0
    assert escape(forecast.parts_text) in html
    assert f"{forecast.a.ratings_probability_text}; Sol against Ky" in forecast.parts_text
    assert f"together {forecast.a.win_probability_text}" in forecast.parts_text
    assert escape(forecast.calibrated_text) in html
    assert "came true about" in forecast.calibrated_text
    body = client.get(
        "/api/v1/probability/", {"a": f"{a.player_id}:SO", "b": f"{b.player_id}:KY"}
    ).json()
    assert body["chance_parts_display"] == forecast.parts_text
    assert body["a"]["win_probability"] == pytest.approx(forecast.a.win_probability)


@pytest.fixture
def league(matchup_table) -> ChanceModel:
    """Six players on Sol, Ky and May, 150 games, rated with the table's offsets in force
    (returned: the refresh after rating fits a table of its own)."""
    in_force = chance_model()
    rng = random.Random(3)
    players = [f"30000000000000000{n}" for n in range(6)]
    replays = []
    for n in range(150):
        one, two = rng.sample(range(6), 2)
        characters = (("SO", "KY", "MA")[one % 3], ("SO", "KY", "MA")[two % 3])
        win = rng.random() < 1 / (1 + 10 ** ((two - one) / 4))
        replays.append(
            replay(n, players[one], players[two], characters=characters, winner=1 if win else 2)
        )
    rate_replays(replays)
    return in_force


def test_every_history_change_follows_from_the_chance_the_row_shows(client, league):
    minimum = glicko_params().minimum_deviation
    checked = with_matchup = 0
    for rating in Rating.objects.select_related("player", "character"):
        for game_set in match_sets(rating, games=500).sets:
            for game in game_set.games:
                if not game.counted:
                    continue
                value, _ = seed_step(
                    game.value,
                    game.deviation,
                    game.opponent_deviation,
                    1.0 if game.won else 0.0,
                    game.win_probability,
                    minimum,
                )
                assert game.change == pytest.approx(value - game.value, rel=1e-9, abs=1e-9)
                offset = league.offset(rating.character_id, game.opponent_character.id)
                assert game.win_probability == pytest.approx(
                    chance(
                        game.value,
                        game.deviation,
                        game.opponent_value,
                        game.opponent_deviation,
                        league.params,
                        offset,
                    ),
                    rel=1e-12,
                )
                with_matchup += offset != 0.0
                checked += 1
    assert checked == 2 * Match.objects.filter(rating__counted=True).count() > 100
    assert with_matchup > 20  # the matchup entered the chances (and so the points)


def test_a_later_calibration_fit_does_not_rewrite_past_odds(client, league):
    rating = Rating.objects.select_related("player", "character").first()
    before = [g.win_probability for s in match_sets(rating).sets for g in s.games]
    store_calibration(3.0)
    after = [g.win_probability for s in match_sets(rating).sets for g in s.games]
    assert before == after
    html = client.get(f"/player/{rating.player_id}/{rating.character.code}").content.decode()
    assert f">{before[0]:.0%}<" in html


def test_the_reference_formulas_store_the_reference_chance(reference_formulas, league):
    for match in Match.objects.select_related("rating"):
        r = match.rating
        assert r.chance_a == pytest.approx(
            win_probability(r.value_a, r.deviation_a, r.value_b, r.deviation_b), rel=1e-12
        )


def test_the_offsets_follow_the_table_from_one_generation_to_the_next(matchup_table):
    sol, ky = (Character.objects.get(code=c).id for c in ("SO", "KY"))
    before = chance_model().offset(sol, ky)
    CharacterMatchup.objects.filter(character_id=sol, opponent_id=ky).update(offset=-60.0)
    CharacterMatchup.objects.filter(character_id=ky, opponent_id=sol).update(offset=60.0)
    assert chance_model().offset(sol, ky) == before  # read once per generation
    bump_generation()  # as every refresh and recompute does after rebuilding the table
    assert chance_model().offset(sol, ky) == pytest.approx(-before)
