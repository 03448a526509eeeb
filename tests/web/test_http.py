"""HTTP behaviour shared by every endpoint: caching, throttling, CORS, methods, errors, docs."""

from __future__ import annotations

import pytest
from rest_framework.throttling import SimpleRateThrottle

from players.models import Rating
from tests.fixtures.api_league import ALICE, BOB
from web.generation import bump_generation

V1 = "/api/v1"
SEASON = "the-season"  # tests.fixtures.api_league
ENDPOINTS = [
    "characters/",
    "players/?name=kyo",
    f"players/{ALICE.id}/",
    f"players/{ALICE.id}/SO/",
    f"players/{ALICE.id}/SO/history/?daily=1",
    f"players/{ALICE.id}/SO/matches/",
    f"players/{ALICE.id}/SO/matchups/",
    f"players/{ALICE.id}/SO/placement/",
    f"players/{ALICE.id}/SO/opponents/?limit=3",
    f"players/{ALICE.id}/SO/rivals/",
    f"players/{ALICE.id}/SO/vs/{BOB.id}/",
    "rankings/",
    "rankings/SO/",
    "matchups/?bracket=all",
    "probability/?a=1700,80&b=1500,200",
    "stats/",
    "seasons/",
    f"seasons/{SEASON}/",
    "lab/",
    "recent/",
]


@pytest.mark.parametrize("path", ENDPOINTS)
def test_every_endpoint_answers_json_with_cache_headers(api, path):
    response = api.get(f"{V1}/{path}")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["ETag"].startswith('W/"')
    # The roster too: a character saved in the admin is served within a minute.
    assert response["Cache-Control"] == "public, max-age=60"


def test_etag_gives_304_until_ratings_change(api):
    url = f"{V1}/players/{ALICE.id}/SO/"
    etag = api.get(url)["ETag"]

    unchanged = api.get(url, HTTP_IF_NONE_MATCH=etag)
    head = api.head(url, HTTP_IF_NONE_MATCH=etag)
    bump_generation()
    changed = api.get(url, HTTP_IF_NONE_MATCH=etag)

    assert unchanged.status_code == head.status_code == 304
    assert unchanged.content == b""
    assert unchanged["ETag"] == etag
    assert unchanged["Cache-Control"] == "public, max-age=60"
    assert changed.status_code == 200
    assert changed["ETag"] != etag


def test_responses_are_cached_until_ratings_change(api):
    url = f"{V1}/players/{ALICE.id}/SO/"
    before = api.get(url).json()["rating"]["value"]
    Rating.objects.filter(player_id=ALICE.id, character__code="SO").update(value=1234.5)

    cached = api.get(url).json()["rating"]["value"]
    bump_generation()
    fresh = api.get(url).json()["rating"]["value"]

    assert cached == before != 1234.5
    assert fresh == 1234.5


def test_etag_depends_on_the_query(api):
    first = api.get(f"{V1}/rankings/", {"page_size": 2})["ETag"]
    second = api.get(f"{V1}/rankings/", {"page_size": 3})["ETag"]

    assert first != second
    assert api.get(f"{V1}/rankings/", {"page_size": 3}, HTTP_IF_NONE_MATCH=first).status_code == 200


def test_errors_are_not_cached(api):
    response = api.get(f"{V1}/players/999/")

    assert response.status_code == 404
    assert "Cache-Control" not in response


def test_throttled_clients_get_429_with_retry_after(api, monkeypatch):
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "anon", "3/min")

    statuses = [api.get(f"{V1}/characters/").status_code for _ in range(4)]
    response = api.get(f"{V1}/stats/")

    assert statuses == [200, 200, 200, 429]
    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= 60
    error = response.json()["error"]
    assert (error["status"], error["code"]) == (429, "throttled")
    assert "throttled" in error["detail"]


def test_cors_allows_any_origin_to_read_without_credentials(api):
    response = api.get(f"{V1}/characters/", HTTP_ORIGIN="https://overlay.example")
    preflight = api.options(
        f"{V1}/rankings/",
        HTTP_ORIGIN="https://bot.example",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
    )

    assert response["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in response
    assert preflight.status_code == 200
    assert preflight["Access-Control-Allow-Origin"] == "*"
    assert set(preflight["Access-Control-Allow-Methods"].split(", ")) == {"GET", "HEAD", "OPTIONS"}


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_read_only(api, method):
    response = getattr(api, method)(f"{V1}/players/{ALICE.id}/", {"name": "x"}, format="json")

    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"


def test_unknown_urls_are_json_404s_and_missing_slashes_redirect(api):
    unknown = api.get(f"{V1}/players/{ALICE.id}/SO/replays/")
    no_slash = api.get(f"{V1}/rankings")

    assert unknown.status_code == 404
    assert unknown.json()["error"]["code"] == "not_found"
    assert no_slash.status_code == 301
    assert no_slash["Location"] == f"{V1}/rankings/"


def test_the_version_root_lists_every_endpoint_with_absolute_urls(api, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = api.get(f"{V1}/")
    assert response.status_code == 200
    index = response.json()
    endpoints = index["endpoints"]
    assert endpoints["rankings"] == "http://testserver/api/v1/rankings/"
    assert endpoints["rating"] == "http://testserver/api/v1/players/{player_id}/{character}/"
    # Exactly the endpoints the other tests call, as templates.
    routes = (
        path.partition("?")[0]
        .replace(ALICE.id, "{player_id}")
        .replace(BOB.id, "{opponent_id}")
        .replace("SO/", "{character}/")
        .replace(f"/{SEASON}/", "/{name}/")
        for path in ENDPOINTS
    )
    # And an owner's own data, which answers only with an owner key (tests/players/test_ownership).
    routes = [*routes, "me/games/", "me/ratings/"]
    assert sorted(endpoints.values()) == sorted(f"http://testserver{V1}/{r}" for r in routes)
    assert (index["schema"], index["docs"]) == (
        "http://testserver/api/schema/",
        "http://testserver/api/docs/",
    )
    for url in endpoints.values():
        if "{" not in url:
            owners_only = "/me/" in url
            status = api.get(url.removeprefix("http://testserver")).status_code
            assert status == 401 if owners_only else status in (200, 400)


def test_schema_and_docs_are_served_without_a_cdn(api):
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    docs = api.get("/api/docs/")

    assert schema.status_code == 200
    assert f"{V1}/players/{{player_id}}/{{character}}/matches/" in schema.json()["paths"]
    assert docs.status_code == 200
    html = docs.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in html
    assert "cdn" not in html.lower()


@pytest.mark.parametrize(
    "path",
    [
        "players/%00/",
        "players/12a/",
        f"players/{ALICE.id}/%00/",
        f"players/{ALICE.id}/SOLBADGUY/",
        "players/123456789012345678901234567890123/",
        "rankings/S%20O/",
    ],
)
def test_malformed_path_parameters_are_404s(api, path):
    response = api.get(f"{V1}/{path}")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    ("path", "query"),
    [
        ("players/", {"name": "a\x00b"}),
        (f"players/{ALICE.id}/SO/matches/", {"opponent": "12a"}),
        (f"players/{ALICE.id}/SO/matches/", {"opponent": ""}),
        (f"players/{ALICE.id}/SO/matches/", {"cursor": "1-99999999999999999999"}),
        (f"players/{ALICE.id}/SO/history/", {"daily": ""}),
        ("matchups/", {"bracket": ""}),
        ("probability/", {"a": " 1700,80", "b": "1500,200"}),
        ("probability/", {"a": "1700,0", "b": "1500,200"}),
    ],
)
def test_malformed_query_parameters_are_400s(api, path, query):
    response = api.get(f"{V1}/{path}", query)

    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == list(query)[:1]
