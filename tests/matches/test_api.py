"""Contract tests: rating history, match lists, player matchups, the matchup matrix,
probability, statistics."""

from __future__ import annotations

from datetime import timedelta

import pytest

from matches.models import CharacterMatchup, Match, SiteStatistic
from matches.ratings.glicko import chance, rate_game, win_probability
from matches.ratings.matchup_offset import Offset, OffsetEvidence, one_step_offset
from matches.selectors.calibration import current_calibration
from matches.selectors.chances import chance_model
from players.models import PlayerMatchup, Rating, RatingSnapshot
from tests.factories import BASE_TIME
from tests.fixtures.api_league import ALICE, BOB, GHOST, LAST_GAME_AT

V1 = "/api/v1"
ALICE_SO = f"{V1}/players/{ALICE.id}/SO"


def iso(moment) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def test_daily_history_is_the_snapshots(api):
    body = api.get(f"{ALICE_SO}/history/", {"daily": 1}).json()

    snapshots = RatingSnapshot.objects.filter(
        rating__player_id=ALICE.id, rating__character__code="SO"
    ).order_by("day")
    assert body["daily"] is True
    assert body["player"]["id"] == ALICE.id
    assert body["character"]["code"] == "SO"
    assert len(body["points"]) == snapshots.count() == 11
    assert body["points"][0]["at"] == f"{snapshots[0].day}T23:59:00Z"
    assert body["points"][-1]["rating"]["value"] == snapshots.last().value


def test_history_per_game_ends_at_the_current_rating(api):
    body = api.get(f"{ALICE_SO}/history/", {"range": "7d"}).json()

    rating = Rating.objects.get(player_id=ALICE.id, character__code="SO")
    week = Match.objects.of_rating(ALICE.id, 0).visible()
    week = week.filter(played_at__gte=rating.last_played_at - timedelta(days=7))
    assert body["daily"] is False
    assert len(body["points"]) == week.count() + 1  # the rating before the first game too
    last = body["points"][-1]
    assert last["at"] == iso(rating.last_played_at)
    assert last["rating"]["value"] == pytest.approx(rating.value)


def test_history_rejects_unknown_range(api):
    response = api.get(f"{ALICE_SO}/history/", {"range": "1y"})

    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["range"]


def test_matches_page_through_every_visible_game(api):
    expected = list(Match.objects.of_rating(ALICE.id, 0).visible().order_by("-played_at", "-id"))
    seen, url = [], f"{ALICE_SO}/matches/?page_size=100"
    while url:
        body = api.get(url).json()
        seen += body["results"]
        url = body["next"]

    assert [game["id"] for game in seen] == [match.id for match in expected]
    assert GHOST.id not in {game["opponent"]["id"] for game in seen}
    match, result = expected[0], expected[0].rating
    on_a = match.player_a_id == ALICE.id
    opponent = match.player_b if on_a else match.player_a
    mine = (result.value_a, result.deviation_a) if on_a else (result.value_b, result.deviation_b)
    theirs = (result.value_b, result.deviation_b) if on_a else (result.value_a, result.deviation_a)
    assert seen[0] == {
        "id": match.id,
        "played_at": iso(match.played_at),
        "floor": match.floor,
        "won": match.winner == ("A" if on_a else "B"),
        "counted": result.counted,
        "rating": {
            "value": result.value_a if on_a else result.value_b,
            "deviation": result.deviation_a if on_a else result.deviation_b,
            "display": seen[0]["rating"]["display"],
        },
        "change": result.change_a if on_a else result.change_b,
        "opponent": {"id": opponent.id, "name": opponent.name, "platform": opponent.platform},
        "opponent_character": seen[0]["opponent_character"],
        "opponent_rating": {
            "value": result.value_b if on_a else result.value_a,
            "deviation": result.deviation_b if on_a else result.deviation_a,
            "display": seen[0]["opponent_rating"]["display"],
        },
        # The chance stored with the game (its update's expected score), the ratings' beside.
        "win_probability": pytest.approx(
            result.chance_a if on_a else 1.0 - result.chance_a, abs=1e-12
        ),
        "model_win_probability": pytest.approx(win_probability(*mine, *theirs), abs=1e-12),
    }


def test_matches_filter_by_opponent_and_since(api):
    since = BASE_TIME + timedelta(days=5)
    body = api.get(
        f"{ALICE_SO}/matches/", {"opponent": BOB.id, "since": iso(since), "page_size": 200}
    ).json()

    expected = (
        Match.objects.of_rating(ALICE.id, 0)
        .filter(played_at__gte=since)
        .filter(player_a_id__in=[ALICE.id, BOB.id], player_b_id__in=[ALICE.id, BOB.id])
    )
    assert body["next"] is None
    assert {game["opponent"]["id"] for game in body["results"]} == {BOB.id}
    assert sorted(game["id"] for game in body["results"]) == sorted(m.id for m in expected)
    assert api.get(f"{ALICE_SO}/matches/", {"opponent": GHOST.id}).json()["results"] == []
    assert api.get(f"{ALICE_SO}/matches/", {"opponent": ALICE.id}).json()["results"] == []


@pytest.mark.parametrize(
    "query",
    [{"cursor": "nonsense"}, {"cursor": "99999999999999999999-1"}, {"since": "yesterday"}],
)
def test_matches_reject_bad_parameters(api, query):
    response = api.get(f"{ALICE_SO}/matches/", query)

    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == list(query)


NO_CHANGE = {"change": None, "change_low": None, "change_high": None}


@pytest.mark.parametrize("bracket", ["all", "top100"])
def test_matchup_matrix(api, bracket):
    body = api.get(f"{V1}/matchups/", {"bracket": bracket}).json()

    assert body["bracket"] == bracket
    assert len(body["characters"]) == len(body["rows"]) == 27
    codes = [character["code"] for character in body["characters"]]
    assert [row["character"]["code"] for row in body["rows"]] == codes
    sol = next(row for row in body["rows"] if row["character"]["code"] == "SO")
    assert [cell["opponent"] for cell in sol["cells"]] == codes
    ky = next(cell for cell in sol["cells"] if cell["opponent"] == "KY")
    mine = CharacterMatchup.objects.get(bracket=bracket, character__code="SO", opponent__code="KY")
    assert (
        ky
        == estimate_body(
            Offset(mine.offset, mine.standard_error), mine.wins, mine.losses, mine.expected_wins
        )
        | {"opponent": "KY", "mirror": False}
        | NO_CHANGE
    )  # all time: no patch to change from
    itself = next(cell for cell in sol["cells"] if cell["opponent"] == "SO")
    assert (itself["mirror"], itself["probability"], itself["games"]) == (True, 0.5, 0)
    unplayed = next(cell for cell in sol["cells"] if cell["opponent"] == "AB")
    assert unplayed == {
        "opponent": "AB",
        "mirror": False,
        "offset": None,
        "standard_error": None,
        "probability": None,
        "interval_low": None,
        "interval_high": None,
        "uncertain": False,
        "games": 0,
        "wins": 0,
        "losses": 0,
        "expected_wins": 0.0,
        **NO_CHANGE,
    }


def estimate_body(offset: Offset, wins: int, losses: int, expected_wins: float) -> dict:
    """What the API says of an estimate, computed here from its parts."""
    low, high = offset.interval()
    return {
        "offset": pytest.approx(offset.value),
        "standard_error": pytest.approx(offset.standard_error),
        "probability": pytest.approx(offset.probability),
        "interval_low": pytest.approx(low),
        "interval_high": pytest.approx(high),
        "uncertain": 1.959964 * offset.standard_error > 70,  # MATCHUP_WIDE_INTERVAL
        "games": wins + losses,
        "wins": wins,
        "losses": losses,
        "expected_wins": pytest.approx(expected_wins),
    }


def test_player_matchups(api):
    body = api.get(f"{V1}/players/{ALICE.id}/SO/matchups/").json()

    rows = PlayerMatchup.objects.filter(rating__player_id=ALICE.id, rating__character__code="SO")
    assert body["player"]["id"] == ALICE.id
    assert body["character"]["code"] == "SO"
    assert [m["opponent_character"]["id"] for m in body["matchups"]] == sorted(
        row.opponent_character_id for row in rows
    )
    overall = OffsetEvidence()
    for row in rows:
        evidence = OffsetEvidence(
            row.wins + row.losses, row.wins, row.expected_wins, row.information
        )
        overall += evidence
        listed = next(
            m
            for m in body["matchups"]
            if m["opponent_character"]["id"] == row.opponent_character_id
        )
        assert listed == estimate_body(
            one_step_offset(evidence, 100.0), row.wins, row.losses, row.expected_wins
        ) | {"opponent_character": listed["opponent_character"]}
    assert body["matchups"][0]["opponent_character"].keys() == {"id", "code", "name"}
    assert body["overall"] == estimate_body(
        one_step_offset(overall, 100.0),
        overall.wins,
        overall.games - overall.wins,
        overall.expected_wins,
    )
    assert body["overall"]["games"] == sum(row.wins + row.losses for row in rows) > 0


def test_matchup_matrix_rejects_unknown_bracket(api):
    response = api.get(f"{V1}/matchups/", {"bracket": "top5"})

    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["bracket"]


def test_probability_of_two_typed_ratings(api, reference_formulas):
    body = api.get(f"{V1}/probability/", {"a": "1700,80", "b": "1500,200"}).json()

    assert body["a"]["model_win_probability"] == pytest.approx(0.721200, abs=1e-6)
    assert body["b"]["model_win_probability"] == pytest.approx(1 - 0.721200, abs=1e-6)
    # Under the reference formulas the chance shown is §4.2's P.
    assert body["a"]["win_probability"] == pytest.approx(0.721200, abs=1e-6)
    assert body["a"]["win_probability"] + body["b"]["win_probability"] == pytest.approx(1.0)
    assert body["a"]["matchup_offset"] == 0.0 and body["chance_parts_display"] == ""
    calibration = current_calibration()  # fitted by the league's refresh
    assert calibration.temperature != 1.0
    assert body["calibrated_display"] == (
        f"On the site's latest {calibration.games:,} games, chances like A's 72.1% came true "
        f"about {100 * calibration.shown(0.7212):.1f}% of the time."
    )
    assert body["a"]["player"] is None and body["a"]["character"] is None
    assert body["a"]["rating"] == {"value": 1700.0, "deviation": 80.0, "display": "1700 ±160"}
    # docs/rating-model.md#reference-numbers: A 1700/80 loses to B 1500/200
    # -> A 1678.0926/78.8224, B 1636.5075/180.2274
    loss, win = body["a"]["after_loss"], body["b"]["after_win"]
    assert loss["rating"]["value"] == pytest.approx(1678.0926, abs=1e-3)
    assert loss["rating"]["deviation"] == pytest.approx(78.8224, abs=1e-3)
    assert loss["change"] == pytest.approx(1678.0926 - 1700, abs=1e-3)
    assert win["rating"]["value"] == pytest.approx(1636.5075, abs=1e-3)
    assert win["rating"]["deviation"] == pytest.approx(180.2274, abs=1e-3)
    assert body["counts"] is True
    after_a_wins = rate_game(1700, 80, 1500, 200, 1.0)
    assert body["a"]["after_win"]["rating"]["value"] == pytest.approx(after_a_wins[0])
    assert body["b"]["after_loss"]["rating"]["value"] == pytest.approx(after_a_wins[2])


def test_probability_of_a_lopsided_game_that_would_not_count(api):
    body = api.get(f"{V1}/probability/", {"a": "2400,30", "b": "1400,30"}).json()

    assert body["counts"] is False
    assert body["a"]["win_probability"] > 0.955
    for side in ("a", "b"):
        for outcome in ("after_win", "after_loss"):
            assert body[side][outcome]["change"] == 0
            assert body[side][outcome]["rating"] == body[side]["rating"]


def test_probability_of_two_players_ratings(api):
    body = api.get(f"{V1}/probability/", {"a": f"{ALICE.id}:so", "b": f"{BOB.id}:1"}).json()

    alice = Rating.objects.get(player_id=ALICE.id, character__code="SO")
    bob = Rating.objects.get(player_id=BOB.id, character__code="KY")
    assert body["a"]["player"]["id"] == ALICE.id
    assert body["b"]["character"]["code"] == "KY"
    assert body["a"]["rating"]["value"] == alice.value
    model = win_probability(alice.value, alice.deviation, bob.value, bob.deviation)
    assert body["a"]["model_win_probability"] == pytest.approx(model)
    # The one chance: the matchup of Sol against Ky from the table, in the chance and the points.
    chances = chance_model()
    offset = chances.offset(alice.character_id, bob.character_id)
    assert body["a"]["matchup_offset"] == pytest.approx(offset)
    assert body["b"]["matchup_offset"] == pytest.approx(-offset)
    shown = chance(alice.value, alice.deviation, bob.value, bob.deviation, chances.params, offset)
    assert body["a"]["win_probability"] == pytest.approx(shown)


@pytest.mark.parametrize(
    ("query", "status", "fields"),
    [
        ({"a": "1700", "b": "1500,200"}, 400, ["a"]),
        ({"a": "1700,0", "b": "abc,def"}, 400, ["a", "b"]),
        ({"a": "nan,80", "b": "1500,200"}, 400, ["a"]),
        ({"a": "1700,80"}, 400, ["b"]),
        ({"a": f"{GHOST.id}:SO", "b": "1500,200"}, 404, []),
        ({"a": f"{ALICE.id}:XX", "b": "1500,200"}, 404, []),
    ],
)
def test_probability_rejects_bad_input(api, query, status, fields):
    response = api.get(f"{V1}/probability/", query)

    assert response.status_code == status
    error = response.json()["error"]
    assert error["status"] == status
    assert sorted(error.get("fields", {})) == fields


def test_statistics(api):
    body = api.get(f"{V1}/stats/").json()

    stored = {row.key: row.data for row in SiteStatistic.objects.all()}
    assert body["totals"] == stored["totals"]
    assert body["totals"]["players"] == 5  # the hidden player is not counted
    assert body["games_per_day"] == stored["games_per_day"]
    assert body["games_per_day"][-1]["day"] == LAST_GAME_AT.date().isoformat()
    assert body["rating_distribution"] == stored["rating_distribution"]
    assert body["floor_distribution"] == stored["floor_distribution"]
    assert body["popularity"] == stored["popularity"]
    assert body["percentiles"] == stored["percentiles"]
    assert body["activity"] == stored["activity"]
    assert body["fraud_index"] == stored["fraud_index"]
    assert body["computed_at"]


def test_statistics_before_any_refresh(api):
    SiteStatistic.objects.all().delete()

    body = api.get(f"{V1}/stats/").json()

    assert body == {
        "computed_at": None,
        "totals": None,
        "games_per_day": [],
        "rating_distribution": None,
        "floor_distribution": [],
        "popularity": None,
        "percentiles": [],
        "activity": None,
        "patch_popularity": body["patch_popularity"],
        "patch_rating_distribution": None,
        "inflation": [],
        "fraud_index": None,
    }
    # Without patches, all time; before a refresh, no games.
    assert body["patch_popularity"]["patch"] == "all"
    assert body["patch_popularity"]["games"] == 0
