"""Every answer carries the Content-Security-Policy, and no page needs inline script."""

from __future__ import annotations

import re

import pytest

from tests.factories import RatingFactory

POLICY = {
    "default-src": "'self'",
    "img-src": "'self' data:",
    "style-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'self'",
    "frame-ancestors": "'none'",
    "form-action": "'self'",
}
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.IGNORECASE)


def directives(response) -> dict[str, str]:
    header = response["Content-Security-Policy"]
    return dict(part.strip().split(" ", 1) for part in header.split(";") if part.strip())


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/top/SO",
        "/search?name=Player",
        "/player/{id}",
        "/player/{id}/SO",
        "/matchups",
        "/calculator?a-rating=1600&a-uncertainty=100&b-rating=1500&b-uncertainty=100",
        "/stats",
        "/lab",
        "/about",
        "/player/1",
        "/admin/login/",
        "/api/v1/characters/",
    ],
)
def test_every_answer_has_the_policy_and_pages_no_inline_script(client, db, path):
    response = client.get(path.format(id=RatingFactory().player_id))

    assert directives(response) == POLICY
    body = response.content.decode()
    assert not INLINE_SCRIPT.search(body)
    assert " style=" not in body  # style-src 'self' refuses style attributes too


def test_the_api_docs_load_their_script_from_a_url(client, db):
    response = client.get("/api/docs/")

    assert directives(response) == {**POLICY, "style-src": "'self' 'unsafe-inline'"}
    assert not INLINE_SCRIPT.search(response.content.decode())
    script = client.get("/api/docs/?script=")
    assert script["Content-Type"].startswith("application/javascript")
    assert b"SwaggerUIBundle" in script.content
