"""The throttle keys on the client address and trusts X-Forwarded-For only as configured
(issue 15, item 11)."""

from __future__ import annotations

import pytest
from rest_framework.throttling import SimpleRateThrottle

URL = "/api/v1/characters/"


@pytest.fixture(autouse=True)
def three_a_minute(monkeypatch, db) -> None:
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "anon", "3/min")


def statuses(client, forwarded_for: list[str]) -> list[int]:
    return [client.get(URL, HTTP_X_FORWARDED_FOR=address).status_code for address in forwarded_for]


def test_by_default_a_forged_header_does_not_escape_the_throttle(client):
    assert statuses(client, ["10.0.0.1"] * 4)[-1] == 429

    assert set(statuses(client, [f"203.0.113.{n}" for n in range(20)])) == {429}


def test_behind_one_proxy_the_last_forwarded_address_is_the_client(client, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    assert statuses(client, ["1.1.1.1, 198.51.100.7"] * 4)[-1] == 429

    forged = [f"203.0.113.{n}, 198.51.100.7" for n in range(5)]
    assert set(statuses(client, forged)) == {429}
    assert statuses(client, ["198.51.100.8"]) == [200]
