"""A private profile (issue 32) is shown nowhere: a crawler over every page it can reach,
the API and the export finds neither its name nor its id, while its games still count and
its opponents' histories show "a private player"; public again, it is back everywhere."""

from __future__ import annotations

import re
from collections import deque
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from matches.models import Match
from matches.replays.readers import iter_replay_payloads
from matches.services.ingest import store_replays
from matches.services.rating.incremental import rate_pending_matches
from matches.services.statistics import recompute_site_statistics
from players.models import Ownership, Player, PlayerName, Rating
from players.services import ownership as service
from players.views.ownership import SIGNED_IN
from tests.factories import ReplaySourceFactory, replay
from tests.fixtures.league import seed_league

SECRET_NAME = "Zebulon Privatus"
LINK = re.compile(r'href="(/[^"#]*)"')
PAGE_LIMIT = 600


@pytest.fixture
def private_player(db, django_capture_on_commit_callbacks) -> tuple[Player, Player]:
    """A busy player of a small league, named uniquely, made private by their owner; and
    the opponent they met most."""
    seed_league(players=30, games=800)
    busiest = Rating.objects.order_by("-wins", "player_id").values_list("player_id", flat=True)[0]
    player = Player.objects.get(id=busiest)
    Player.objects.filter(id=player.id).update(name=SECRET_NAME)
    PlayerName.objects.filter(player=player).update(name=SECRET_NAME)
    ownership = Ownership.objects.create(
        player=player, key_hash="!", claimed_at=timezone.now(), key_version=1
    )
    opponent_id = (
        Match.objects.filter(player_a=player).values_list("player_b_id", flat=True).first()
        or Match.objects.filter(player_b=player).values_list("player_a_id", flat=True).first()
    )
    with django_capture_on_commit_callbacks(execute=True):
        service.set_private(ownership, True, by="owner", client_address="10.0.0.1")
        recompute_site_statistics(timezone.now())
    return player, Player.objects.get(id=opponent_id)


def api_urls(private_id: str) -> list[str]:
    """Every API answer about the other ratings, and the lists and searches."""
    urls = ["/api/v1/rankings/", "/api/v1/stats/", "/api/v1/matchups/", "/api/v1/characters/"]
    urls += [f"/api/v1/players/?name={word}" for word in ("Zeb", "Privatus", SECRET_NAME)]
    others = Rating.objects.exclude(player_id=private_id)
    for player_id, code in others.values_list("player_id", "character__code"):
        base = f"/api/v1/players/{player_id}/{code}/"
        urls += [base, f"{base}matches/?games=500", f"{base}opponents/", f"{base}rivals/"]
    return urls


def crawl(client: Client, secrets: tuple[str, str]) -> tuple[int, list[str]]:
    """Follow every link of the site from the rankings, searches and the API: how many
    answers were read, and those holding any of `secrets` (a name, then an id)."""
    seeds = ["/", "/?per=player", "/matchups", "/stats", "/supporters", "/calculator"]
    seeds += [f"/search?name={word}" for word in ("Zeb", "Privatus", *secrets)]
    queue, seen, leaks = deque(seeds + api_urls(secrets[1])), set(), []
    while queue and len(seen) < PAGE_LIMIT * 3:
        url = queue.popleft()
        if url in seen:
            continue
        seen.add(url)
        # A client address per request: the crawl is no client the API should throttle.
        address = f"10.9.{len(seen) // 250}.{len(seen) % 250}"
        answer = client.get(url, follow=True, REMOTE_ADDR=address)
        assert answer.status_code in (200, 404), (url, answer.status_code)
        body = answer.content.decode()
        # A search repeats what it was asked: only the other secret would be a leak.
        asked = url.partition("name=")[2]
        if any(secret in body for secret in secrets if secret != asked):
            leaks.append(url)
        if url.startswith("/api/") or "text/html" not in answer.get("Content-Type", ""):
            continue
        for link in LINK.findall(body):
            link = link.replace("&amp;", "&")
            if not link.startswith(("/static/", "/admin/", "/api/docs", "/api/schema")):
                queue.append(link)
    return len(seen), leaks


def export_text() -> str:
    out = StringIO()
    call_command("export_ratings", "--format", "csv", stdout=out)
    return out.getvalue()


def test_a_private_player_is_shown_nowhere_yet_their_games_count(private_player):
    player, opponent = private_player
    secrets = (SECRET_NAME, player.id)
    read, leaks = crawl(Client(), secrets)
    assert read > 300
    assert leaks == [], "\n".join(leaks)
    assert not any(secret in export_text() for secret in secrets)
    assert Client().get(f"/player/{player.id}").status_code == 404
    assert Client().get(f"/api/v1/players/{player.id}/").status_code == 404
    # Their opponents' histories keep the games, against "a private player".
    codes = Rating.objects.filter(player=opponent).values_list("character__code", flat=True)
    pages = [Client().get(f"/player/{opponent.id}/{code}").content.decode() for code in codes]
    assert any("a private player" in page for page in pages)

    # A new game against them, on ratings both have, still counts and moves the opponent.
    mine = Rating.objects.filter(player=player).select_related("character").first()
    theirs = Rating.objects.filter(player=opponent).select_related("character").first()
    low = min(mine, theirs, key=lambda rating: rating.value)
    a, b = sorted([mine, theirs], key=lambda r: r.player_id)
    game = replay(
        99_999,
        a.player_id,
        b.player_id,
        characters=(a.character.code, b.character.code),
        winner=1 if a == low else 2,  # an upset: informative, so it counts
        played_at=timezone.now(),
    )
    store_replays(source=ReplaySourceFactory(), replays=iter_replay_payloads([game]))
    rate_pending_matches()
    newest = Match.objects.select_related("rating").latest("id")
    assert newest.rating.counted
    theirs_after = Rating.objects.get(id=theirs.id)
    assert (theirs_after.value, theirs_after.wins + theirs_after.losses) != (
        theirs.value,
        theirs.wins + theirs.losses,
    )


def test_public_again_the_player_is_back_everywhere(
    private_player, django_capture_on_commit_callbacks
):
    player, _ = private_player
    ratings_before = sorted(Rating.objects.values_list("id", "value", "deviation"))
    with django_capture_on_commit_callbacks(execute=True):
        service.set_private(player.ownership, False, by="owner", client_address="10.0.0.1")
    assert sorted(Rating.objects.values_list("id", "value", "deviation")) == ratings_before
    client = Client()
    assert SECRET_NAME in client.get("/?per=player").content.decode()
    assert SECRET_NAME in client.get(f"/player/{player.id}", follow=True).content.decode()
    assert player.id in client.get("/api/v1/players/?name=Zebulon").content.decode()
    assert player.id in export_text()


def test_a_private_profile_shows_its_signed_in_owner_everything_and_nobody_else(private_player):
    player, _ = private_player
    code = Rating.objects.filter(player=player).values_list("character__code", flat=True)[0]
    owner = Client()
    session = owner.session
    session[SIGNED_IN] = {player.id: player.ownership.key_version}
    session.save()
    page = owner.get(f"/player/{player.id}", follow=True)
    assert page.status_code == 200
    assert SECRET_NAME in page.content.decode() and page.redirect_chain
    mine = owner.get(f"/player/{player.id}/{code}")
    assert SECRET_NAME in mine.content.decode()
    assert "private: only you see this page" in mine.content.decode()
    assert "no-store" in mine["Cache-Control"] and "private" in mine["Cache-Control"]
    # Rendered for the owner alone: nobody else (nor a browser signed in elsewhere) sees it.
    assert Client().get(f"/player/{player.id}/{code}").status_code == 404
    stranger = Client()
    session = stranger.session
    session[SIGNED_IN] = {player.id: player.ownership.key_version + 1}  # an old key
    session.save()
    assert stranger.get(f"/player/{player.id}/{code}").status_code == 404
