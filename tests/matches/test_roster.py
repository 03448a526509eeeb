"""The roster as data (docs/roster.md): characters managed in the admin and seen everywhere
at the next request, replays waiting for a character the roster lacks, kept replays
ingested once they pass, and the simulator's characters released mid-league."""

from __future__ import annotations

import csv
import json
from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db.models import Q
from django.utils import timezone

from matches.models import Match, RejectedReplay, Season
from matches.replays.readers import iter_replay_payloads
from matches.services.file_import import file_import_source
from matches.services.ingest import store_replays
from matches.services.kept_replays import ingest_kept_replays
from matches.services.rating.incremental import rate_pending_matches
from matches.services.refresh import refresh_derived_tables
from matches.simulation.league import LeagueSimulator, write_league
from matches.sources.pulling import add_source, pull_source
from matches.tasks import ingest_waiting_replays, rate_matches
from players.formatting import rating_text
from players.models import Character, Rating
from players.selectors.roster import current_roster
from tests.factories import BASE_TIME, random_league, replay

pytestmark = pytest.mark.django_db

A, B = "100000000000000001", "100000000000000002"


def store(*replays: dict):
    return store_replays(source=file_import_source(), replays=iter_replay_payloads(replays))


@pytest.fixture
def add_in_admin(admin_client, django_capture_on_commit_callbacks, monkeypatch):
    """Add a character through the admin and run what its commit sends: the generation
    bumped, and the task storing the replays that wait for it run here rather than sent
    to a broker (tests/worker/test_new_character.py runs it on a real worker)."""
    monkeypatch.setattr(ingest_waiting_replays, "delay", ingest_waiting_replays)
    monkeypatch.setattr(rate_matches, "delay", rate_matches)

    def add(code: str, name: str = "Newcomer") -> None:
        with django_capture_on_commit_callbacks(execute=True):
            response = admin_client.post(
                "/admin/players/character/add/",
                {"code": code, "name": name, "display_order": 40, "_save": "1"},
            )
        assert response.status_code == 302, response.content.decode()[-1500:]

    return add


def test_a_character_added_in_the_admin_is_served_at_the_next_request(add_in_admin, client):
    before = client.get("/api/v1/characters/").json()["results"]
    assert [c["code"] for c in before][:3] == ["SO", "KY", "MA"] and len(before) == 27

    add_in_admin("NX", "Nexus")

    after = client.get("/api/v1/characters/").json()["results"]
    assert after[-1] == {"id": 27, "code": "NX", "name": "Nexus", "retired": False}
    assert 'href="/top/NX"' in client.get("/").content.decode()  # the rankings' menu too
    assert current_roster().codes["NX"] == 27  # and replay validation


def test_the_roster_is_read_once_a_generation(django_assert_num_queries):
    current_roster()
    with django_assert_num_queries(0):
        current_roster()


def test_codes_keep_their_format_and_cannot_change(admin_client):
    for bad in ("nx", "1X", "TOOLONG", "N-X"):
        response = admin_client.post(
            "/admin/players/character/add/", {"code": bad, "name": "x", "display_order": 1}
        )
        assert response.status_code == 200 and "errornote" in response.content.decode(), bad
    assert not Character.objects.filter(name="x").exists()
    change = admin_client.get("/admin/players/character/0/change/").content.decode()
    assert 'name="code"' not in change  # read only once saved


def test_a_renamed_character_keeps_its_games_and_ratings(admin_client, client):
    store(replay(1, A, B, characters=("SO", "KY")))
    rate_pending_matches()
    response = admin_client.post(
        "/admin/players/character/0/change/",
        {"name": "Sol Badguy", "display_order": 0, "release_date": "", "_save": "1"},
    )
    assert response.status_code == 302
    rating = Rating.objects.get(player_id=A)
    assert (rating.character.code, rating.character.name) == ("SO", "Sol Badguy")
    assert "Sol Badguy" in client.get(f"/player/{A}/SO").content.decode()


def test_a_replay_naming_an_unknown_code_waits_for_that_character():
    result = store(
        replay(1, characters=("SO", "nx ")),  # any case, padded: the code NX
        replay(2, characters=("SO", "N-X")),  # no code at all: an ordinary rejection
        replay(3, characters=("NX", "KY"), winner=3),  # broken otherwise: not waiting
        replay(4),
    )
    assert (result.new, result.rejected) == (1, 3)
    kept = dict(RejectedReplay.objects.values_list("raw", "waiting_for"))
    assert sorted(kept.values()) == ["", "", "NX"]
    assert RejectedReplay.objects.get(waiting_for="NX").reason == "unknown character 'NX'"


def test_waiting_replays_are_stored_and_rated_once_when_the_character_comes(
    admin_client, add_in_admin
):
    waiting = [replay(n, characters=("SO", "NX")) for n in range(1, 4)]
    store(*waiting, replay(9))
    page = admin_client.get("/admin/matches/replaysource/operations/").content.decode()
    assert "<strong>3</strong> replays wait for character <code>NX</code>, first seen" in page
    status = StringIO()
    call_command("status", stdout=status)
    assert "waiting: 3 replays wait for character NX, first seen" in status.getvalue()

    add_in_admin("NX")
    store(*waiting)  # the feed delivers them again

    stored = Match.objects.filter(character_b__code="NX")
    assert sorted(stored.values_list("source_replay_id", flat=True)) == [
        "r-000001",
        "r-000002",
        "r-000003",
    ]
    assert {m.source_id for m in stored} == {file_import_source().id}  # their own source
    assert not Match.objects.pending().exists()  # and rated
    assert not RejectedReplay.objects.filter(ingested_at__isnull=True).exists()
    page = admin_client.get("/admin/matches/replaysource/operations/").content.decode()
    assert "wait for character" not in page
    assert ingest_kept_replays(waiting_only=True).read == 0  # never ingested twice


def test_ingest_rejected_stores_kept_replays_that_pass_now(monkeypatch):
    monkeypatch.setattr(rate_matches, "delay", rate_matches)
    source = file_import_source()
    now = datetime.now(UTC)
    good_json = json.dumps(replay(1))
    cells = ["r-000002", "1793534400", "", "1", A, "ann", "SO", "pc", B, "bob", "KY", ""]
    good_csv = ",".join(cells)
    bad = json.dumps(replay(3, A, A))
    for raw in (good_json, good_csv, bad):  # kept by rules stricter than today's
        RejectedReplay.objects.create(
            source=source, raw=raw, fingerprint=raw[:60], reason="an old rule", created_at=now
        )

    out, again = StringIO(), StringIO()
    call_command("ingest_rejected", stdout=out)
    call_command("ingest_rejected", stdout=again)

    assert sorted(Match.objects.values_list("source_replay_id", flat=True)) == [
        "r-000001",
        "r-000002",
    ]
    assert "new 2" in out.getvalue() and "read 0" in again.getvalue()
    still = RejectedReplay.objects.get(ingested_at__isnull=True)
    assert still.reason == "player plays against themself"  # today's reason


def test_a_character_released_mid_league_plays_from_its_day_on(tmp_path):
    start = datetime(2026, 1, 5, tzinfo=UTC)
    league = LeagueSimulator(60, 11, start, rate=1.0, releases={"NX": 200 / 86400})
    games = list(league.games(900))
    days = [
        datetime.fromisoformat(g["played_at"]).timestamp() - start.timestamp()
        for g in games
        if any(side["character"] == "NX" for side in g["players"])
    ]
    assert len(days) > 10 and min(days) >= 200
    assert league.codes[-1] == "NX" and league.codes[:27] == current_roster_codes()

    path = tmp_path / "league.jsonl"
    write_league(path, 60, 900, 11, start=start, days=900 / 86400, releases={"NX": 200 / 86400})
    with open(f"{path}.releases.csv", encoding="utf-8") as truth:
        assert list(csv.reader(truth)) == [
            ["character", "released_at"],
            ["NX", "2026-01-05T00:03:20+00:00"],
        ]


def current_roster_codes() -> tuple[str, ...]:
    return tuple(c.code for c in current_roster().characters)


def test_the_api_serves_a_character_added_after_its_schema_was_written(add_in_admin, client):
    store(replay(1, A, B, characters=("SO", "KY")), replay(2, A, B, characters=("SO", "NX")))
    rate_pending_matches()
    url = f"/api/v1/players/{A}/SO/vs/{B}/"
    assert client.get(url, {"character": "NX"}).status_code == 404  # no such rating yet
    add_in_admin("NX")
    answer = client.get(url, {"character": "NX"})
    assert answer.status_code == 200
    assert answer.json()["opponent_character"]["code"] == "NX"


def test_simulate_league_takes_releases(tmp_path):
    out = tmp_path / "league.jsonl"
    call_command(
        "simulate_league", "--players", "60", "--games", "900", "--seed", "11",
        "--out", str(out), "--start", "2026-01-05", "--days", str(900 / 86400),
        "--release", f"NX={200 / 86400}", stdout=StringIO(),
    )  # fmt: skip
    released = (tmp_path / "league.jsonl.releases.csv").read_text().splitlines()[1]
    assert released.startswith("NX,2026-01-05T00:03:")
    assert '"character":"NX"' in out.read_text()


def test_simulate_league_takes_retirements(tmp_path):
    out = tmp_path / "league.jsonl"
    call_command(
        "simulate_league", "--players", "60", "--games", "900", "--seed", "11",
        "--out", str(out), "--start", "2026-01-05", "--days", str(900 / 86400),
        "--retire", f"SO={200 / 86400}", stdout=StringIO(),
    )  # fmt: skip
    retired = (tmp_path / "league.jsonl.retirements.csv").read_text().splitlines()[1]
    assert retired.startswith("SO,2026-01-05T00:03:")
    games = [json.loads(line) for line in out.read_text().splitlines()]
    sol = [g["played_at"] for g in games if '"SO"' in json.dumps(g["players"])]
    assert sol and max(sol) < "2026-01-05T00:03:20"


def test_a_simulator_source_rehearses_release_day():
    start = (datetime.now(UTC) - timedelta(seconds=900)).replace(microsecond=0)
    settings = {"start": start.isoformat(), "players": "60", "seed": "11", "rate": "1"}
    source = add_source(
        name="rehearsal", kind="simulator", settings={**settings, "releases": "NX=0.0023"}
    )
    run = pull_source(source)
    waiting = RejectedReplay.objects.filter(source=source, waiting_for="NX").count()
    assert run.error == "" and waiting > 10 and run.new == run.fetched - waiting
    with pytest.raises(ValueError, match="CODE=DAYS"):
        add_source(name="bad", kind="simulator", settings={**settings, "releases": "nx=1"})


@pytest.fixture
def retire_in_admin(admin_client, django_capture_on_commit_callbacks, monkeypatch):
    """Retire a character through the admin's change form, running what its commit sends."""
    monkeypatch.setattr(ingest_waiting_replays, "delay", ingest_waiting_replays)

    def retire(code: str) -> None:
        character = Character.objects.get(code=code)
        with django_capture_on_commit_callbacks(execute=True):
            response = admin_client.post(
                f"/admin/players/character/{character.id}/change/",
                {
                    "name": character.name,
                    "display_order": character.display_order,
                    "release_date": "",
                    "retired": "on",
                    "_save": "1",
                },
            )
        assert response.status_code == 302, response.content.decode()[-1500:]
        assert Character.objects.get(code=code).retired

    return retire


@pytest.fixture
def retired_may(retire_in_admin):
    """A league of Sol, Ky and May rated and refreshed, then May retired."""
    store(*random_league(400))
    rate_pending_matches()
    refresh_derived_tables(BASE_TIME + timedelta(days=12))
    retire_in_admin("MA")
    return Rating.objects.filter(character__code="MA", deviation__lt=75).order_by("-value")


def test_a_retired_character_keeps_its_ratings_history_and_matchups_marked(client, retired_may):
    rating = retired_may.first()
    assert rating is not None
    # The rankings: marked in the character filter, and its own ranking still served.
    top = client.get("/").content.decode()
    assert ">May (retired)</a></li>" in top and ">Sol</a></li>" in top
    may = client.get("/top/MA").content.decode()
    assert "Rankings · May (retired)" in may and f"/player/{rating.player_id}/MA" in may
    ranked = client.get("/api/v1/rankings/MA/").json()["results"]
    assert [row["player"]["id"] for row in ranked][:1] == [rating.player_id]
    # The profile: its rating, games and matchups stay, marked.
    profile = client.get(f"/player/{rating.player_id}/MA").content.decode()
    assert '<span class="muted">· May (retired)</span></h1>' in profile
    assert rating_text(rating.value, rating.deviation) in profile
    games = client.get(f"/api/v1/players/{rating.player_id}/MA/matches/").json()["results"]
    assert len(games) > 0
    # Matchups and statistics list it, marked.
    matchups = client.get("/matchups").content.decode()
    assert "May (retired)" in matchups and "Sol (retired)" not in matchups
    assert "May (retired)" in client.get("/matchups?character=MA").content.decode()
    stats = client.get("/stats").content.decode()
    assert ">May (retired)</a></th>" in stats and ">Sol</a></th>" in stats
    Season.objects.create(name="one", start=BASE_TIME.date(), end=BASE_TIME.date())
    season = client.get("/seasons/one").content.decode()
    assert ">May (retired)</a></li>" in season and ">Sol</a></li>" in season
    roster = client.get("/api/v1/characters/").json()["results"]
    assert {c["code"]: c["retired"] for c in roster if c["code"] in ("SO", "MA")} == {
        "SO": False,
        "MA": True,
    }


def test_replays_naming_a_retired_character_are_stored_and_rated(retire_in_admin):
    retire_in_admin("MA")
    result = store(replay(1, A, B, characters=("MA", "SO")))
    assert result.new == 1 and not RejectedReplay.objects.exists()
    rate_pending_matches()
    assert Rating.objects.get(player_id=A).character.code == "MA"


def test_the_calculator_offers_no_retired_character(client, retire_in_admin):
    # A plays May most, then Sol.
    store(*(replay(n, A, B, characters=("MA" if n < 6 else "SO", "KY")) for n in range(1, 9)))
    rate_pending_matches()
    retire_in_admin("MA")
    page = client.get(f"/calculator?a-player={A}&b-rating=1500&b-uncertainty=300")
    html = page.content.decode()
    assert 'data-retired="MA"' in html
    assert 'value="SO" data-player' in html and 'value="MA" data-player' not in html
    assert page.context["sides"][0].chosen.character.code == "SO"  # not the most played
    # A link from May's profile still compares May.
    html = client.get(
        f"/calculator?a-player={A}&a-character=MA&b-rating=1500&b-uncertainty=300"
    ).content.decode()
    assert 'value="MA" data-player="' + A + '" selected' in html


def test_a_retired_character_plays_no_game_from_its_day(tmp_path):
    start = datetime(2026, 1, 5, tzinfo=UTC)
    kept = LeagueSimulator(300, 5, start, rate=0.02)
    league = LeagueSimulator(300, 5, start, rate=0.02, retirements={"MA": 10})
    games = list(league.games(30_000))  # about 17 days
    day_10 = start + timedelta(days=10)

    def plays(game: dict, code: str) -> bool:
        return any(side["character"] == code for side in game["players"])

    before = [g for g in games if datetime.fromisoformat(g["played_at"]) < day_10]
    after = games[len(before) :]
    assert len(after) > 10_000 and any(plays(g, "MA") for g in before)
    assert not any(plays(g, "MA") for g in after)
    # Its players play on: as many games a day after as before, other characters alike.
    assert before == list(kept.games(len(before)))
    with pytest.raises(ValueError, match="does not play"):
        LeagueSimulator(30, 5, start, retirements={"ZZ": 1})
    path = tmp_path / "league.jsonl"
    write_league(path, 50, 200, 5, start=start, days=20, retirements={"MA": 10})
    assert (tmp_path / "league.jsonl.retirements.csv").read_text() == (
        f"character,retired_at\nMA,{day_10.isoformat()}\n"
    )


def test_a_simulator_source_retires_a_character_on_its_day():
    start = (datetime.now(UTC) - timedelta(seconds=900)).replace(microsecond=0)
    settings = {"start": start.isoformat(), "players": "60", "seed": "11", "rate": "1"}
    source = add_source(
        name="farewell", kind="simulator", settings={**settings, "retirements": "SO=0.005"}
    )
    run = pull_source(source)
    assert run.error == "" and run.new > 800
    retired_at = start + timedelta(days=0.005)
    sol = Match.objects.filter(source=source).filter(
        Q(character_a__code="SO") | Q(character_b__code="SO")
    )
    assert sol.filter(played_at__lt=retired_at).exists()
    assert not sol.filter(played_at__gte=retired_at).exists()
    assert Match.objects.filter(source=source, played_at__gte=retired_at).count() > 300
    with pytest.raises(ValueError, match="CODE=DAYS"):
        add_source(name="bad", kind="simulator", settings={**settings, "retirements": "so=1"})


def test_a_character_retired_in_the_admin_leaves_a_live_simulated_league(
    retire_in_admin, monkeypatch
):
    start = (datetime.now(UTC) - timedelta(seconds=900)).replace(microsecond=0)
    settings = {"start": start.isoformat(), "players": "60", "seed": "11", "rate": "1"}
    source = add_source(name="live", kind="simulator", settings=settings)
    retired_at = start + timedelta(seconds=300)
    monkeypatch.setattr(timezone, "now", lambda: retired_at)
    pull_source(source)
    retire_in_admin("SO")
    pull_source(source)  # at the same moment: it learns of the retirement
    monkeypatch.undo()
    run = pull_source(source)
    assert run.error == "" and run.new > 400
    source.refresh_from_db()
    assert source.settings["retirements"] == f"SO={300 / 86400:.6f}"
    sol = Match.objects.filter(source=source).filter(
        Q(character_a__code="SO") | Q(character_b__code="SO")
    )
    assert sol.filter(played_at__lt=retired_at).exists()
    assert not sol.filter(played_at__gt=retired_at).exists()
