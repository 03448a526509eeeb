"""Requests no page or endpoint can serve get a clear 4xx, never a 500 (issue 15, item 10)."""

from __future__ import annotations

import pytest
from django.http import QueryDict

from tests.factories import RatingFactory
from web.middleware import refuse_unstorable_query

UNSTORABLE = "NUL character or an unpaired surrogate"


@pytest.fixture
def player_id(db) -> str:
    return RatingFactory().player_id


@pytest.mark.parametrize(
    "path",
    [
        "/player/%00",
        "/player/%00/SO",
        "/player/{id}/%00",
        "/player/{id}/SO%00",
        "/top/%00",
        "/player/12a",
        "/player/123456789012345678901234567890123",
        "/player/{id}/SOLBADGUY",
    ],
)
def test_malformed_page_paths_are_404s(client, player_id, path):
    assert client.get(path.format(id=player_id)).status_code == 404


def test_a_profile_still_answers(client, player_id):
    assert client.get(f"/player/{player_id}/SO").status_code == 200
    assert client.get(f"/player/{player_id}").status_code == 302


@pytest.mark.parametrize(
    "url",
    [
        "/search?name=%00",
        "/search?name=a%00b",
        "/search?%00=1",
        "/matchups?bracket=%00",
        "/calculator?a-player=%00&a-character=SO",
        "/player/{id}/SO?before=%00",
    ],
)
def test_a_query_parameter_holding_nul_is_a_400_on_every_page(client, player_id, url):
    response = client.get(url.format(id=player_id))

    assert response.status_code == 400
    assert UNSTORABLE in response.content.decode()


@pytest.mark.parametrize(
    "url", ["/api/v1/players/?name=%00", "/api/v1/matchups/?bracket=a%00", "/api/v1/stats/?x=%00"]
)
def test_and_on_every_endpoint_in_the_error_shape(client, url):
    response = client.get(url)

    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["status"], error["code"]) == (400, "invalid")
    assert UNSTORABLE in error["detail"]


def test_an_unpaired_surrogate_is_refused_too(rf):
    # No URL decodes to one (Django replaces invalid UTF-8), so it is set on the request.
    request = rf.get("/search")
    request.GET = QueryDict(mutable=True)
    request.GET["name"] = "a\ud800"
    response = refuse_unstorable_query(lambda request: pytest.fail("the view ran"))(request)

    assert response.status_code == 400


@pytest.mark.parametrize(
    "path", ["/", "/about", "/search?name=a", "/api/v1/stats/", "/admin/login/"]
)
def test_trace_is_405_everywhere(client, db, path):
    response = client.generic("TRACE", path)

    assert response.status_code == 405
    assert "TRACE" not in response["Allow"]
