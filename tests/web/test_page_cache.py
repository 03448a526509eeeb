"""The page and API caches: keyed on the parameters a view reads, and HEAD without a body
(issue 15, item 12 and the cached HEAD)."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit
from urllib.request import urlopen
from wsgiref.util import setup_testing_defaults

import pytest
from django.core.cache import cache
from django.core.handlers.wsgi import WSGIHandler

from matches.views import profile as profile_view
from players.api import characters as characters_api
from tests.factories import RatingFactory


def cached_entries(kind: str) -> int:
    """Entries of one cache ("page" or "api") in the test's locmem cache."""
    return sum(f":{kind}:" in key for key in cache._cache)


@pytest.fixture
def rating(db):
    return RatingFactory()


def counting(monkeypatch, module, name: str) -> list[int]:
    calls: list[int] = []
    original = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_unknown_parameters_cost_nothing(client, rating, monkeypatch):
    renders = counting(monkeypatch, profile_view, "rating_profile")
    profile = f"/player/{rating.player_id}/{rating.character.code}"

    pages = {client.get(f"{profile}?junk={n}").content for n in range(50)}

    assert len(renders) == 1
    assert cached_entries("page") == 1
    assert pages == {client.get(profile).content}
    assert len(renders) == 1


def test_known_parameters_give_their_own_pages_in_a_canonical_key(client, rating):
    profile = f"/player/{rating.player_id}/{rating.character.code}"
    week = client.get(f"{profile}?range=7d&junk=1").content
    month = client.get(f"{profile}?range=30d").content

    assert week != month
    assert cached_entries("page") == 2
    calculator = ("a-rating=1600", "a-uncertainty=100", "b-rating=1500", "b-uncertainty=100")
    forward = client.get("/calculator?" + "&".join(calculator)).content
    backward = client.get("/calculator?x=1&" + "&".join(reversed(calculator))).content
    assert forward == backward
    assert b"%" in forward  # the forecast was computed from the inputs
    assert cached_entries("page") == 3


def test_the_api_cache_ignores_unknown_parameters(client, db, monkeypatch):
    runs = counting(monkeypatch, characters_api, "characters")

    bodies = {client.get(f"/api/v1/characters/?junk={n}").content for n in range(50)}

    assert len(bodies) == 1
    assert len(runs) == 1
    assert cached_entries("api") == 1
    etags = {client.get(f"/api/v1/characters/?other={n}")["ETag"] for n in range(3)}
    assert etags == {client.get("/api/v1/characters/")["ETag"]}


def test_the_api_cache_keeps_known_parameters_apart(client, rating):
    first = client.get("/api/v1/players/?name=Player&limit=1&junk=1").json()
    everyone = client.get("/api/v1/players/?name=Player").json()

    assert cached_entries("api") == 2
    assert len(first["results"]) == 1
    assert everyone["results"]


def raw_request(url: str, method: str) -> tuple[dict[str, str], bytes]:
    """The answer's headers and body as sent on the wire (no client that drops a HEAD
    body on its own)."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as connection:
        request = f"{method} {parts.path} HTTP/1.0\r\nHost: {parts.netloc}\r\n\r\n"
        connection.sendall(request.encode())
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")[1:]
    headers = {name.lower(): value.strip() for name, value in (x.split(":", 1) for x in lines)}
    return headers, body


@pytest.mark.parametrize("path", ["/about", "/player/{id}/SO"])
def test_a_cached_head_has_no_body(live_server, path):
    url = live_server.url + path.format(id=RatingFactory().player_id)
    with urlopen(url) as response:  # renders the page and caches it
        page = response.read()

    headers, body = raw_request(url, "HEAD")

    assert body == b""
    assert headers.get("content-length", str(len(page))) == str(len(page))


def wsgi_answer(path: str, method: str) -> tuple[dict[str, str], bytes]:
    """What the WSGI application hands any server: the servers in use drop a HEAD body
    (Django's runserver, gunicorn with a warning), others need not."""
    environ = {"REQUEST_METHOD": method, "PATH_INFO": path}
    setup_testing_defaults(environ)
    started: list[dict[str, str]] = []
    answer = WSGIHandler()(environ, lambda status, headers, *_: started.append(dict(headers)))
    try:
        return started[0], b"".join(answer)
    finally:
        answer.close()


@pytest.mark.parametrize("path", ["/about", "/player/{id}/SO", "/api/v1/characters/"])
def test_the_application_sends_no_body_with_a_head(transactional_db, path):
    path = path.format(id=RatingFactory().player_id)
    uncached_headers, uncached_body = wsgi_answer(path, "HEAD")
    _, page = wsgi_answer(path, "GET")

    headers, body = wsgi_answer(path, "HEAD")  # from the cache

    assert page
    assert body == uncached_body == b""
    for answer in (headers, uncached_headers):
        assert answer.get("Content-Length", str(len(page))) == str(len(page))
