"""Contract tests: fair opponents for a rating and the rating systems lab's latest report."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

import pytest

from matches.models import Match, MatchRating, SiteStatistic
from matches.selectors.calibration import calibration_report
from matches.selectors.lab import LAB_STATISTIC, latest_lab_report
from matches.selectors.opponents import fair_opponents
from matches.services.evaluation import (
    DEFAULT_SYSTEMS,
    ESTABLISHED_GAMES,
    evaluate,
    save_lab_report,
)
from players.models import Character, Player, Rating
from tests.factories import RatingFactory
from tests.fixtures.api_league import ALICE, BOB, CAROL, DAVE, ERIN, GHOST, LEAGUE_NOW
from web.generation import bump_generation

# Numbers of the reference formulas (the one-chance model: tests/matches/test_one_chance.py).
pytestmark = pytest.mark.usefixtures("reference_formulas")


V1 = "/api/v1"
ALICE_SO = f"{V1}/players/{ALICE.id}/SO"


def iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def twin_of(rating: Rating, player_id: str, **flags: bool) -> Rating:
    """A recently played rating equal to `rating`: the fairest opponent it could have.

    Its player is made here, not by PlayerFactory, whose id sequence (shared by the whole
    run) would move on to the league's ids.
    """
    player = Player.objects.create(
        id=player_id,
        name=f"Twin {player_id[-1]}",
        first_seen=LEAGUE_NOW - timedelta(days=1),
        last_seen=LEAGUE_NOW - timedelta(days=1),
        **flags,
    )
    return RatingFactory(
        player=player,
        character=Character.objects.get(code="MA"),
        value=rating.value,
        deviation=rating.deviation,
        last_played_at=LEAGUE_NOW - timedelta(days=1),
    )


# --- Fair opponents ----------------------------------------------------------------------


def test_opponents_are_the_fair_opponents_of_the_rating(api, settings):
    body = api.get(f"{ALICE_SO}/opponents/").json()

    rating = Rating.objects.get(player_id=ALICE.id, character__code="SO")
    assert body["player"] == {"id": ALICE.id, "name": ALICE.name, "platform": "ps"}
    assert body["character"] == {"id": 0, "code": "SO", "name": "Sol"}
    assert body["rating"] == {
        "value": rating.value,
        "deviation": rating.deviation,
        "display": f"{round(rating.value)} ±{math.floor(2 * rating.deviation)}",
    }
    assert body["tier"] == "Gold"
    assert body["active_days"] == settings.FAIR_OPPONENT_DAYS
    expected = fair_opponents(ALICE.id, rating.character_id, now=LEAGUE_NOW)
    characters = {c.code: c for c in Character.objects.all()}
    assert body["opponents"] == [
        {
            "player": {"id": row["player_id"], "name": row["name"]},
            "character": {
                "id": characters[row["character"]].id,
                "code": row["character"],
                "name": characters[row["character"]].name,
            },
            "rating": {
                "value": row["value"],
                "deviation": row["deviation"],
                "display": f"{round(row['value'])} ±{math.floor(2 * row['deviation'])}",
            },
            "tier": row["tier"],
            "win_probability": row["win_probability"],
            "model_win_probability": row["model_win_probability"],
            "quality": row["quality"],
        }
        for row in expected
    ]
    # Everyone else who played recently, fairest (nearest in rating) first; never Alice's
    # own KY rating nor the hidden player.
    assert [o["player"]["id"] for o in body["opponents"]] == [BOB.id, CAROL.id, DAVE.id, ERIN.id]
    assert [o["tier"] for o in body["opponents"]] == ["Silver", "Silver", "Silver", "Bronze"]
    assert body["opponents"][0]["character"] == {"id": 1, "code": "KY", "name": "Ky"}
    assert all(o["win_probability"] > 0.5 for o in body["opponents"])


def test_opponents_by_character_id_and_any_case(api):
    by_code = api.get(f"{ALICE_SO}/opponents/").json()

    assert api.get(f"{V1}/players/{ALICE.id}/so/opponents/").json() == by_code
    assert api.get(f"{V1}/players/{ALICE.id}/0/opponents/").json() == by_code


def test_opponents_limit(api):
    one = api.get(f"{ALICE_SO}/opponents/", {"limit": 1}).json()["opponents"]
    fifty = api.get(f"{ALICE_SO}/opponents/", {"limit": 50}).json()["opponents"]

    assert [o["player"]["id"] for o in one] == [BOB.id]
    assert len(fifty) == 4


def test_hidden_players_never_appear_among_opponents(api):
    alice = Rating.objects.get(player_id=ALICE.id, character__code="SO")
    visible = twin_of(alice, "240000000000000001")
    twin_of(alice, "240000000000000002", hidden=True)
    bump_generation()

    found = [o["player"]["id"] for o in api.get(f"{ALICE_SO}/opponents/").json()["opponents"]]

    # The visible twin is a perfect match; the hidden one, just as good, is left out.
    assert found == [visible.player_id, BOB.id, CAROL.id, DAVE.id, ERIN.id]
    assert GHOST.id not in found

    Player.objects.filter(id=BOB.id).update(hidden=True)
    bump_generation()
    found = [o["player"]["id"] for o in api.get(f"{ALICE_SO}/opponents/").json()["opponents"]]

    assert found == [visible.player_id, CAROL.id, DAVE.id, ERIN.id]
    # Nor can a hidden player ask for suggestions.
    assert api.get(f"{V1}/players/{BOB.id}/KY/opponents/").status_code == 404


def test_cheaters_and_idle_ratings_are_not_suggested(api):
    alice = Rating.objects.get(player_id=ALICE.id, character__code="SO")
    twin_of(alice, "240000000000000003", cheater=True)
    idle = twin_of(alice, "240000000000000004")
    Rating.objects.filter(id=idle.id).update(last_played_at=LEAGUE_NOW - timedelta(days=60))
    bump_generation()

    found = [o["player"]["id"] for o in api.get(f"{ALICE_SO}/opponents/").json()["opponents"]]

    assert found == [BOB.id, CAROL.id, DAVE.id, ERIN.id]


@pytest.mark.parametrize(
    "path",
    [
        f"players/{GHOST.id}/SO/opponents/",
        f"players/{ALICE.id}/MA/opponents/",
        "players/999/SO/opponents/",
        f"players/{ALICE.id}/XX/opponents/",
        f"players/{ALICE.id}/99/opponents/",
    ],
)
def test_opponents_of_hidden_unknown_or_unplayed_are_404s(api, path):
    response = api.get(f"{V1}/{path}")

    assert response.status_code == 404
    error = response.json()["error"]
    assert (error["status"], error["code"]) == (404, "not_found")
    assert error["detail"]


@pytest.mark.parametrize("limit", ["0", "51", "-1", "x", ""])
def test_opponents_reject_bad_limits(api, limit):
    response = api.get(f"{ALICE_SO}/opponents/", {"limit": limit})

    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["status"], error["code"]) == (400, "invalid")
    assert list(error["fields"]) == ["limit"]


# --- The lab -----------------------------------------------------------------------------


def test_lab_is_the_latest_report(api):
    body = api.get(f"{V1}/lab/").json()

    report = latest_lab_report()
    calibration = calibration_report()
    assert body == {
        **report,
        "computed_at": iso(datetime.fromisoformat(report["computed_at"])),
        "calibration": {
            **calibration,
            "fitted_at": iso(datetime.fromisoformat(calibration["fitted_at"])),
        },
    }
    # The calibration the shown chances go through, fitted on the latest rated games.
    assert (
        body["calibration"]["games"]
        == MatchRating.objects.exclude(match__player_a=GHOST.id)
        .exclude(match__player_b=GHOST.id)
        .count()
    )
    assert body["computed_at"].endswith("Z")
    assert body["since"] is None
    assert [system["name"] for system in body["systems"]] == list(DEFAULT_SYSTEMS)
    ghost_games = Match.objects.filter(player_a=GHOST.id) | Match.objects.filter(player_b=GHOST.id)
    assert body["excluded_games"] == ghost_games.count() > 0
    assert body["games"] + body["excluded_games"] == Match.objects.count()
    assert body["established_min_games"] == ESTABLISHED_GAMES
    glicko = body["systems"][0]
    assert glicko["overall"]["games"] == body["games"]
    assert 0 < glicko["established"]["games"] < body["games"]
    assert 0 < glicko["overall"]["log_loss"] < 0.693  # better than a coin flip
    calibration = glicko["overall"]["calibration"]
    assert [(row["low"], row["high"]) for row in calibration] == [
        (n / 10, (n + 1) / 10) for n in range(10)
    ]
    assert sum(row["games"] for row in calibration) == body["games"]


def test_lab_report_from_a_date_with_empty_tables(api):
    since = LEAGUE_NOW + timedelta(days=1)  # after every game: nothing to score
    save_lab_report(evaluate(systems=["elo"], since=since))
    bump_generation()

    body = api.get(f"{V1}/lab/").json()

    assert body["since"] == iso(since)
    assert body["games"] == 0
    [elo] = body["systems"]
    assert elo["name"] == "elo"
    assert elo["overall"]["games"] == 0
    assert (elo["overall"]["log_loss"], elo["overall"]["brier"]) == (None, None)
    assert elo["established"]["accuracy"] is None
    assert {
        (row["games"], row["predicted"], row["observed"]) for row in elo["overall"]["calibration"]
    } == {(0, None, None)}


def test_lab_is_a_404_until_the_first_evaluation(api):
    SiteStatistic.objects.filter(key=LAB_STATISTIC).delete()
    bump_generation()

    response = api.get(f"{V1}/lab/")

    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert "Cache-Control" not in response
    error = response.json()["error"]
    assert (error["status"], error["code"]) == (404, "not_found")
    assert error["detail"].startswith("No lab report yet")
