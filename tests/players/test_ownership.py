"""Players claim their profiles (issue 32): a code in the in-game name, a key shown once to
the claiming browser, private profiles, linked accounts; and the attacks on all that."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth.hashers import identify_hasher
from django.test import Client
from django.utils import timezone

from matches.replays.readers import iter_replay_payloads
from matches.services.ingest import store_replays
from matches.services.rating.incremental import rate_pending_matches
from players.models import Claim, Ownership, OwnershipEvent, Player
from players.services import ownership as service
from tests.factories import ReplaySourceFactory, replay

PLAYER, OPPONENT, OTHER = "100000000000000001", "100000000000000002", "100000000000000003"


def play(n: int, player: str, name: str, *, ago: timedelta = timedelta(0)) -> None:
    """A game of `player` under `name` against OPPONENT, played `ago` before now, stored
    as a pull stores it."""
    names = (name, "Opponent") if player < OPPONENT else ("Opponent", name)
    sides = (player, OPPONENT) if player < OPPONENT else (OPPONENT, player)
    game = replay(n, *sides, names=names, played_at=timezone.now() - ago)
    store_replays(source=ReplaySourceFactory(), replays=iter_replay_payloads([game]))


@pytest.fixture
def players(db) -> None:
    play(1, PLAYER, "Daisy")
    play(2, OTHER, "Mallory")


def start_claim(browser: Client, player: str = PLAYER, address: str = "10.0.0.1") -> str:
    response = browser.post(f"/player/{player}/claim", REMOTE_ADDR=address)
    assert response.status_code == 302, response.content
    page = browser.get(f"/player/{player}/claim").content.decode()
    return re.search(r'<code id="claim-code">([A-Z]+)</code>', page).group(1)


def status(browser: Client, player: str = PLAYER) -> dict:
    return browser.get(f"/player/{player}/claim/status").json()


def test_a_code_in_the_name_completes_the_claim_and_only_the_claiming_browser_gets_the_key(
    players,
):
    claimant, stranger = Client(), Client()
    code = start_claim(claimant)
    assert set(code) <= set(service.CODE_LETTERS) and len(code) == service.CODE_LENGTH
    waiting = status(claimant)
    assert waiting["state"] == "waiting" and waiting["code"] == code and not waiting["key"]
    assert "Daisy" in waiting["message"]

    play(3, PLAYER, f"Dai {code.lower()} sy")  # spaces and case do not matter

    assert status(stranger)["state"] == "none"  # the code alone gives nothing
    claimed = status(claimant)
    assert claimed["state"] == "claimed" and len(claimed["key"]) >= 32
    again = status(claimant)
    assert again["state"] == "done" and not again["key"]  # shown once
    ownership = Ownership.objects.get(player_id=PLAYER)
    assert identify_hasher(ownership.key_hash).algorithm == "pbkdf2_sha256"
    assert claimed["key"] not in ownership.key_hash
    assert service.check_key(PLAYER, claimed["key"]) == ownership
    # Signed in by the claim; the stranger is asked for the key.
    assert "Make it private" in claimant.get(f"/player/{PLAYER}/owner").content.decode()
    assert "Owner key" in stranger.get(f"/player/{PLAYER}/owner").content.decode()


def test_a_stale_code_or_a_game_from_before_the_claim_completes_nothing(players):
    browser = Client()
    code = start_claim(browser)
    # A game played before the claim started, arriving late, proves nothing.
    play(4, PLAYER, f"Daisy{code}", ago=timedelta(hours=1))
    assert status(browser)["state"] == "waiting"
    Claim.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    play(5, PLAYER, f"Daisy{code}")
    assert status(browser)["state"] == "expired"
    assert not Ownership.objects.exists()


def test_an_old_code_never_completes_a_new_claim_and_a_new_claim_replaces_the_key(players):
    first, second = Client(), Client()
    old_code = start_claim(first)
    play(3, PLAYER, f"Daisy{old_code}")
    old_key = status(first)["key"]
    new_code = start_claim(second)
    play(4, PLAYER, f"Daisy{old_code}")  # the old code again
    assert status(second)["state"] == "waiting"
    assert service.check_key(PLAYER, old_key) is not None

    play(5, PLAYER, f"Daisy{new_code}")
    new_key = status(second)["key"]
    assert new_key and service.check_key(PLAYER, old_key) is None
    # The old owner is told on their next visit, and signed out.
    page = first.get(f"/player/{PLAYER}/owner").content.decode()
    assert "claimed this profile again" in page and "Make it private" not in page


def test_a_name_holding_someone_elses_code_claims_nothing(players):
    victim_claim = Client()
    code = start_claim(victim_claim)
    play(3, OTHER, f"Mallory{code}")  # the attacker's own account shows the victim's code
    assert status(victim_claim)["state"] == "waiting"
    assert not Ownership.objects.exists()


def test_claim_starts_are_throttled_per_client_and_per_profile(players, settings):
    settings.CLAIM_STARTS_PER_HOUR = 3
    for n in range(3):
        start_claim(Client(), address=f"10.0.1.{n}")
    # A fourth client on the same profile, and the first client on another profile.
    refused = Client().post(f"/player/{PLAYER}/claim", REMOTE_ADDR="10.0.1.9")
    assert refused.status_code == 429 and refused["Retry-After"] == "3600"
    for player in (OTHER, OPPONENT):
        start_claim(Client(), player=player, address="10.0.2.1")
    start_claim(Client(), player=OTHER, address="10.0.2.1")
    assert Client().post(f"/player/{OPPONENT}/claim", REMOTE_ADDR="10.0.2.1").status_code == 429
    assert Claim.objects.filter(player_id=PLAYER).count() == 3


def test_brute_forcing_the_key_is_throttled_and_changes_nothing(players, settings):
    settings.KEY_ATTEMPTS_PER_HOUR = 5
    owner = Client()
    play(3, PLAYER, f"Daisy{start_claim(owner)}")
    key = status(owner)["key"]
    before = Ownership.objects.values().get(player_id=PLAYER)
    attacker = Client()
    for n in range(5):
        guess = attacker.post(
            f"/player/{PLAYER}/owner", {"action": "sign-in", "key": f"guess{n}"},
            REMOTE_ADDR=f"10.0.3.{n}",
        )  # fmt: skip
        assert guess.status_code == 403
    # Past the profile's limit even the right key is refused, from any address.
    right = attacker.post(
        f"/player/{PLAYER}/owner", {"action": "sign-in", "key": key}, REMOTE_ADDR="10.0.3.99"
    )
    assert right.status_code == 429
    assert Ownership.objects.values().get(player_id=PLAYER) == before
    assert not Player.objects.get(id=PLAYER).private


def test_only_the_signed_in_owner_makes_a_profile_private(players):
    owner, stranger = Client(), Client()
    play(3, PLAYER, f"Daisy{start_claim(owner)}")
    status(owner)
    stranger.post(f"/player/{PLAYER}/owner", {"action": "private"})
    assert not Player.objects.get(id=PLAYER).private

    owner.post(f"/player/{PLAYER}/owner", {"action": "private"}, REMOTE_ADDR="10.0.4.1")
    assert Player.objects.get(id=PLAYER).private
    logged = OwnershipEvent.objects.filter(player_id=PLAYER).order_by("at")
    assert list(logged.values_list("kind", flat=True)) == [
        "claim-started", "claimed", "key-issued", "private"
    ]  # fmt: skip
    assert logged.last().client_address == "10.0.4.1"
    owner.post(f"/player/{PLAYER}/owner", {"action": "public"})
    assert not Player.objects.get(id=PLAYER).private


def test_a_rotated_key_replaces_the_old_one_and_a_revoked_ownership_signs_out(players):
    owner = Client()
    play(3, PLAYER, f"Daisy{start_claim(owner)}")
    old_key = status(owner)["key"]
    page = owner.post(f"/player/{PLAYER}/owner", {"action": "rotate"}).content.decode()
    new_key = re.search(r"<code>([^<]+)</code>", page).group(1)
    assert service.check_key(PLAYER, old_key) is None
    assert service.check_key(PLAYER, new_key) is not None

    owner.post(f"/player/{PLAYER}/owner", {"action": "private"})
    service.revoke(Ownership.objects.get(player_id=PLAYER), by="operator", client_address=None)
    page = owner.get(f"/player/{PLAYER}/owner").content.decode()
    assert "revoked" in page and "Make it private" not in page
    assert service.check_key(PLAYER, new_key) is None
    assert not Player.objects.get(id=PLAYER).private


def test_linked_accounts_show_each_other_while_public(players, django_capture_on_commit_callbacks):
    owner = Client()
    play(3, PLAYER, f"Daisy{start_claim(owner)}")
    status(owner)
    play(4, OTHER, f"Mallory{start_claim(owner, player=OTHER)}")
    other_key = status(owner, player=OTHER)["key"]
    owner.post(f"/player/{PLAYER}/owner", {"action": "link", "other": OTHER, "other_key": "x"})
    assert Ownership.objects.filter(person__isnull=False).count() == 0
    owner.post(
        f"/player/{PLAYER}/owner", {"action": "link", "other": OTHER, "other_key": other_key}
    )
    rate_pending_matches()
    page = Client().get(f"/player/{PLAYER}/SO").content.decode()
    assert "Also plays as" in page and "Mallory" in page

    with django_capture_on_commit_callbacks(execute=True):  # the cached pages go stale
        owner.post(f"/player/{OTHER}/owner", {"action": "private"})
    page = Client().get(f"/player/{PLAYER}/SO").content.decode()
    assert "Also plays as" not in page and "Mallory" not in page


def test_the_owner_downloads_every_game_and_rating_day_with_formulas_neutralised(players):
    owner = Client()
    play(3, PLAYER, f"Daisy{start_claim(owner)}")
    status(owner)
    store_replays(
        source=ReplaySourceFactory(),
        replays=iter_replay_payloads(
            [
                replay(
                    4, PLAYER, OPPONENT, names=("Daisy", "=HYPERLINK(1)"), played_at=timezone.now()
                )
            ]
        ),
    )
    rate_pending_matches()
    assert Client().get(f"/player/{PLAYER}/owner/games.csv").status_code == 403
    games = owner.get(f"/player/{PLAYER}/owner/games.csv")
    assert games["Content-Type"].startswith("text/csv")
    lines = games.content.decode().splitlines()
    assert lines[0].startswith("player_id,character,played_at,result,opponent_id,opponent")
    assert len(lines) == 1 + 3  # the player's three games
    assert ",'=HYPERLINK(1)," in games.content.decode()
    assert ",=HYPERLINK" not in games.content.decode()
    as_json = owner.get(f"/player/{PLAYER}/owner/games.json").json()
    # Opponents by their current name, as the history shows them.
    assert len(as_json) == 3 and {game["opponent"] for game in as_json} == {"=HYPERLINK(1)"}
    history = owner.get(f"/player/{PLAYER}/owner/ratings.json").json()
    assert history and {row["player_id"] for row in history} == {PLAYER}


def test_the_api_gives_an_owner_their_data_with_the_key_above_the_anonymous_rate(players):
    owner = Client()
    play(3, PLAYER, f"Daisy{start_claim(owner)}")
    key = status(owner)["key"]
    rate_pending_matches()
    assert Client().get("/api/v1/me/games/").status_code == 401
    wrong = Client().get("/api/v1/me/games/", HTTP_AUTHORIZATION=f"Key {PLAYER}:nope")
    assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "authentication_failed"
    signed = {"HTTP_AUTHORIZATION": f"Key {PLAYER}:{key}", "REMOTE_ADDR": "10.0.5.1"}
    games = Client().get("/api/v1/me/games/", **signed).json()
    assert [game["player_id"] for game in games] == [PLAYER, PLAYER]
    assert Client().get("/api/v1/me/ratings/", **signed).json()[0]["player_id"] == PLAYER
    # Past the anonymous rate (120 a minute), the key keeps reading.
    anonymous = [
        Client().get("/api/v1/stats/", REMOTE_ADDR="10.0.5.1").status_code for _ in range(125)
    ]
    assert anonymous.count(429) > 0
    owned = [Client().get("/api/v1/me/ratings/", **signed).status_code for _ in range(20)]
    assert owned == [200] * 20


def test_a_completed_claim_closes_the_others_so_their_codes_complete_nothing(players):
    mine, theirs = Client(), Client()
    my_code, their_code = start_claim(mine), start_claim(theirs, address="10.0.6.1")
    play(3, PLAYER, f"Daisy{my_code}")
    key = status(mine)["key"]
    play(4, PLAYER, f"Daisy{their_code}")
    assert status(theirs)["state"] == "closed"
    assert service.check_key(PLAYER, key) is not None


def test_an_operator_sees_the_log_and_revokes_in_the_admin(players, admin_client):
    owner = Client()
    play(3, PLAYER, f"Daisy{start_claim(owner)}")
    key = status(owner)["key"]
    assert admin_client.get("/admin/players/ownershipevent/").status_code == 200
    listing = admin_client.get("/admin/players/ownership/").content.decode()
    assert PLAYER in listing and key not in listing
    admin_client.post(
        "/admin/players/ownership/",
        {"action": "revoke", "_selected_action": [PLAYER]},
        REMOTE_ADDR="10.0.7.1",
    )
    assert service.check_key(PLAYER, key) is None
    revoked = OwnershipEvent.objects.get(player_id=PLAYER, kind="revoked")
    assert (revoked.by, revoked.client_address) == ("admin", "10.0.7.1")
    assert "revoked" in owner.get(f"/player/{PLAYER}/owner").content.decode()
