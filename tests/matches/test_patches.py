"""Game versions and patches (docs/rating-model.md#patches): the replay's optional version
through every reader, each game's patch by its version or its time, and the matchup
page and API per patch."""

from __future__ import annotations

import io
import json
from datetime import timedelta
from functools import partial

import pytest
from django.core.management import call_command

from matches.admin import PatchForm
from matches.models import CharacterMatchup, Match, Patch
from matches.replays.readers import CSV_COLUMNS, iter_replay_payloads
from matches.replays.validation import InvalidReplay
from matches.replays.validation import parse_replay as _parse_replay
from matches.services.file_import import file_import_source
from matches.services.ingest import store_replays
from matches.services.patches import assign_patches
from matches.services.rating.incremental import rate_pending_matches
from matches.services.refresh import refresh_derived_tables
from matches.tasks import reassign_patches
from players.models import Character, Rating
from players.seed_roster import SEED_IDS
from tests.factories import BASE_TIME, random_league, replay

parse_replay = partial(_parse_replay, characters=SEED_IDS)

pytestmark = pytest.mark.django_db

LIVE_1_1 = BASE_TIME + timedelta(hours=10)


def test_the_version_is_optional_trimmed_and_checked():
    now = BASE_TIME + timedelta(days=1)
    assert parse_replay(replay(1), now=now).version == ""
    assert parse_replay(replay(1, version=" 1.29 "), now=now).version == "1.29"
    assert parse_replay(replay(1, version=129), now=now).version == "129"
    for version, reason in [
        (["1.29"], "version must be a string, not list"),
        ("1" * 65, "version longer than 64 characters"),
        ("1.2\t9", "version holds unprintable characters"),
    ]:
        with pytest.raises(InvalidReplay) as error:
            parse_replay(replay(1, version=version), now=now)
        assert error.value.reason == reason


def test_every_reader_stores_the_version(tmp_path):
    lines = tmp_path / "games.jsonl"
    lines.write_text(
        json.dumps(replay(1, version="1.29")) + "\n" + json.dumps(replay(2)) + "\n",
        encoding="utf-8",
    )
    table = tmp_path / "games.csv"
    epoch = int((BASE_TIME + timedelta(minutes=3)).timestamp())
    table.write_text(
        ",".join((*CSV_COLUMNS, "version"))
        + f"\nc-3,{epoch},10,1,1001,one,SO,pc,1002,two,KY,ps,1.30\n"
        # A text time takes the general path, not the plain one.
        + f"c-4,{(BASE_TIME + timedelta(minutes=4)).isoformat()},,2,1001,one,SO,,1002,two,KY,,"
        + "1.31\n",
        encoding="utf-8",
    )
    for path in (lines, table):
        call_command("import_replays", str(path), stdout=io.StringIO())
    feed = [replay(5, version="1.32"), replay(6, version="")]
    store_replays(source=file_import_source(), replays=iter_replay_payloads(feed))
    versions = dict(Match.objects.values_list("source_replay_id", "version"))
    assert versions == {
        "r-000001": "1.29",
        "r-000002": "",
        "c-3": "1.30",
        "c-4": "1.31",
        "r-000005": "1.32",
        "r-000006": "",
    }


def store(*games: dict) -> None:
    store_replays(source=file_import_source(), replays=iter_replay_payloads(games))


def patches_of() -> dict[str, str | None]:
    return dict(Match.objects.values_list("source_replay_id", "patch__name"))


def test_a_game_belongs_to_the_patch_of_its_version_else_of_its_time():
    Patch.objects.create(name="1.0", versions=["1.0", "1.0b"], live_at=BASE_TIME)
    Patch.objects.create(name="1.1", versions=["1.1"], live_at=LIVE_1_1)
    store(
        replay(-5),  # before every patch, no version
        replay(5, version="1.0b"),
        replay(6, version="1.1"),  # reported before 1.1 went live: its version decides
        replay(7, version="9.9"),  # a version no patch lists: by its time
        replay(11 * 60),  # after 1.1 went live, no version
    )
    assert assign_patches() == 4
    expected = {
        "r--00005": None,
        "r-000005": "1.0",
        "r-000006": "1.1",
        "r-000007": "1.0",
        "r-000660": "1.1",
    }
    assert patches_of() == expected
    # Only the games stored since are read again.
    assert assign_patches() == 0
    store(replay(12 * 60, version="1.0"))
    assert assign_patches() == 1
    assert patches_of()["r-000720"] == "1.0"
    # A patch moved: every game again, only the changed ones written.
    Patch.objects.filter(name="1.1").update(live_at=BASE_TIME + timedelta(minutes=7))
    assert assign_patches() == 0
    assert assign_patches(every_game=True) == 1
    assert patches_of()["r-000007"] == "1.1"


def test_a_version_names_one_patch():
    Patch.objects.create(name="1.0", versions=["1.0"], live_at=BASE_TIME)
    form = PatchForm(data={"name": "1.1", "versions": "1.1, 1.0", "live_at": LIVE_1_1.isoformat()})
    assert not form.is_valid()
    assert form.errors["versions"] == ["Already listed by 1.0."]
    form = PatchForm(
        data={"name": "1.1", "versions": " 1.1 ,1.1a", "live_at": LIVE_1_1.isoformat()}
    )
    assert form.is_valid(), form.errors
    assert form.save().versions == ["1.1", "1.1a"]


@pytest.fixture
def two_patches():
    """SO against KY: 50% in 1.0, 60% in 1.1, tight intervals; all time between."""
    old = Patch.objects.create(name="1.0", versions=[], live_at=BASE_TIME - timedelta(days=9))
    new = Patch.objects.create(name="1.1", versions=[], live_at=BASE_TIME - timedelta(days=1))
    so, ky = Character.objects.get(code="SO"), Character.objects.get(code="KY")
    for patch, offset in ((old, 0.0), (new, 70.437), (None, 35.0)):
        for character, opponent, sign in ((so, ky, 1), (ky, so, -1)):
            CharacterMatchup.objects.create(
                bracket="all",
                patch=patch,
                character=character,
                opponent=opponent,
                wins=600 if sign > 0 else 400,
                losses=400 if sign > 0 else 600,
                expected_wins=500,
                offset=sign * offset,
                standard_error=10.0,
            )
    return old, new


def so_against_ky(html: str) -> str:
    start = html.index("Sol vs Ky")
    return html[start : html.index('"', start)]


def test_the_matchup_page_shows_the_current_patch_and_its_changes(client, two_patches):
    html = client.get("/matchups").content.decode()
    assert '<a href="?bracket=all&amp;patch=1.1" aria-current="page">Patch 1.1</a>' in html
    assert '<a href="?bracket=all&amp;patch=all">All time</a>' in html
    cell = so_against_ky(html)
    assert "60.0% at equal skill" in cell
    # 10 points up, the interval from the two standard errors (delta method).
    assert "Since patch 1.0: +10.0 (+6.1 to +13.9) percentage points" in cell
    assert '<span class="moved up" aria-hidden="true">\u25b2</span>' in html
    html = client.get("/matchups?patch=all").content.decode()
    assert "Since patch" not in html and "55.0% at equal skill" in so_against_ky(html)
    html = client.get("/matchups?patch=1.0&character=SO").content.decode()
    assert "Since" not in html  # the first patch has nothing to change from


def test_an_unknown_patch_is_refused_saying_which_exist(client, two_patches):
    """A page answers 400; the API 404, as for a character the roster lacks: the schema
    cannot list patches, which are data."""
    page = client.get("/matchups?patch=2.0")
    assert page.status_code == 400
    assert "takes 1.1, 1.0 or all" in page.content.decode()
    api = client.get("/api/v1/matchups/?patch=2.0")
    assert api.status_code == 404
    assert "takes 1.1, 1.0 or all" in json.dumps(api.json()["error"])


def test_the_matchup_api_reads_a_patch(client, two_patches):
    body = client.get("/api/v1/matchups/").json()
    assert (body["patch"], body["previous_patch"]) == ("1.1", "1.0")
    so = next(row for row in body["rows"] if row["character"]["code"] == "SO")
    ky = next(cell for cell in so["cells"] if cell["opponent"] == "KY")
    assert ky["probability"] == pytest.approx(0.6, abs=1e-4)
    assert ky["change"] == pytest.approx(0.1, abs=1e-4)
    assert ky["change_low"] < 0.1 < ky["change_high"]
    body = client.get("/api/v1/matchups/?patch=all").json()
    assert (body["patch"], body["previous_patch"]) == ("all", None)


def test_a_rating_s_matchups_per_patch_add_up_to_its_stored_ones(client):
    Patch.objects.create(name="1.0", versions=[], live_at=BASE_TIME - timedelta(days=1))
    Patch.objects.create(name="1.1", versions=[], live_at=BASE_TIME + timedelta(minutes=7400))
    store(*random_league(400))
    assign_patches()
    rate_pending_matches()
    rating = Rating.objects.order_by("-wins").first()
    url = f"/api/v1/players/{rating.player_id}/{rating.character.code}/matchups/"
    stored = client.get(url).json()["matchups"]
    assert client.get(f"{url}?patch=all").json()["matchups"] == stored
    per_patch = [client.get(f"{url}?patch={name}").json()["matchups"] for name in ("1.0", "1.1")]
    assert all(per_patch) and per_patch[0] != per_patch[1]
    for row in stored:
        code = row["opponent_character"]["code"]
        parts = [r for rows in per_patch for r in rows if r["opponent_character"]["code"] == code]
        for field in ("wins", "losses", "games"):
            assert sum(part[field] for part in parts) == row[field], (code, field)
        assert sum(part["expected_wins"] for part in parts) == pytest.approx(row["expected_wins"])
    assert client.get(f"{url}?patch=9.9").status_code == 404
    # The profile reads them too: all time by default, a patch's with the picker.
    page = f"/player/{rating.player_id}/{rating.character.code}"
    html = client.get(page).content.decode()
    assert "from all their games:" in html
    assert '<a href="?range=30d&amp;patch=all#matchups-heading" aria-current="true">' in html
    html = client.get(f"{page}?patch=1.0").content.decode()
    assert "from their games of patch 1.0:" in html
    first = per_patch[0][0]
    record = f"{first['wins']}\u2013{first['losses']}"
    assert record in html.split("matchups-heading", 2)[2]
    assert client.get(f"{page}?patch=9.9").status_code == 400


def test_the_statistics_give_each_patch_s_popularity(client):
    Patch.objects.create(name="1.0", versions=[], live_at=BASE_TIME - timedelta(days=1))
    Patch.objects.create(name="1.1", versions=["1.1"], live_at=BASE_TIME + timedelta(days=1))
    store(
        *(replay(n, characters=("SO", "KY")) for n in range(6)),
        *(replay(n, characters=("SO", "MA"), version="1.1") for n in range(6, 10)),
        replay(-3 * 24 * 60, characters=("AX", "KY")),  # before every patch
    )
    refresh_derived_tables()
    body = client.get("/api/v1/stats/").json()["patch_popularity"]
    assert (body["patch"], body["previous_patch"], body["games"]) == ("1.1", "1.0", 4)
    shares = {row["character"]: (row["share"], row["change"]) for row in body["rows"]}
    assert shares["SO"] == (0.5, 0.0)
    assert shares["MA"] == (0.5, 0.5)
    assert shares["KY"] == (0.0, -0.5)
    body = client.get("/api/v1/stats/?patch=all").json()["patch_popularity"]
    assert (body["games"], body["previous_patch"]) == (11, None)
    assert {row["character"]: row["share"] for row in body["rows"]}["AX"] == pytest.approx(1 / 22)
    page = client.get("/stats?patch=1.1").content.decode()
    assert "Share of the 4 games of patch 1.1" in page
    assert '<a href="?patch=all#by-patch">All time</a>' in page
    assert client.get("/stats?patch=9.9").status_code == 400
    assert client.get("/api/v1/stats/?patch=9.9").status_code == 404


def test_a_patch_added_in_the_admin_places_the_games_it_moves_in_a_task(
    admin_client, monkeypatch, django_capture_on_commit_callbacks, settings
):
    # Matchup tables take games between settled ratings only: here every game counts.
    settings.RATING_LOW_DEVIATION = settings.RATING_INITIAL_DEVIATION + 1
    queued: list[dict] = []
    monkeypatch.setattr(reassign_patches, "delay", queued.append)
    store(*random_league(60))
    rate_pending_matches()
    assign_patches()
    assert not Match.objects.filter(patch__isnull=False).exists()  # no patch yet
    form = {"name": "1.0", "versions": "", "live_at_0": "2026-10-01", "live_at_1": "00:00:00"}
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post("/admin/matches/patch/add/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    # Queued at commit, not run in the request: the games from its time on can move.
    assert queued == [{"versions": [], "spans": [["2026-10-01T00:00:00+00:00", None]]}]
    assert not Match.objects.filter(patch__isnull=False).exists()
    reassign_patches(*queued)
    assert not Match.objects.filter(patch__isnull=True).exists()
    patch = Patch.objects.get()
    assert (
        CharacterMatchup.objects.filter(patch=patch).count()
        == CharacterMatchup.objects.filter(patch=None).count()
        > 0
    )
    # Deleted in the admin: its games keep its id until the task moves them (no write
    # through every game in the request); its tables go with it.
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(f"/admin/matches/patch/{patch.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert queued[-1] == queued[0]
    assert not Match.objects.exclude(patch_id=patch.pk).exists()
    assert not CharacterMatchup.objects.filter(patch__isnull=False).exists()
    reassign_patches(queued[-1])
    assert not Match.objects.filter(patch_id__isnull=False).exists()
