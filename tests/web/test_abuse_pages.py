"""Issue 35, items 3 and 4: one client can neither fill the cache with new spellings of a
value nor make the site render (or search) without bound."""

from __future__ import annotations

import logging
import os
import threading

import pytest
from django.core.cache import cache, caches
from django.http import HttpResponse
from django.test import RequestFactory

from matches.views import about as about_view
from players.selectors import search as search_selector
from tests.factories import RatingFactory
from tests.web.test_page_cache import cached_entries, counting
from web import caching, checks


@pytest.fixture
def rating(db):
    return RatingFactory()


def test_every_spelling_of_a_page_number_is_one_entry(client, rating):
    """The audit's fill: each new `page=0…01`, `active=030` was an hour-long entry."""
    for zeros in range(1, 40):
        assert client.get(f"/?page={'0' * zeros}1&active={'0' * zeros}30").status_code == 200
    assert client.get("/?page=1&active=30").status_code == 200

    assert cached_entries("page") == 1


def test_a_value_without_a_canonical_form_is_a_400_and_never_stored(client, rating):
    for value in ("nan", "1e999", "abc", "inf"):
        assert client.get("/calculator", {"a-rating": value}).status_code == 400
    assert client.get("/?page=\u0661").status_code == 400  # an Arabic-Indic one: not page 1
    assert client.get(f"/?page={'0' * 5000}").status_code == 400
    assert cached_entries("page") == 0
    numbers = ("1500", "1500.0", " 1.5e3", "01500")
    pages = {
        client.get("/calculator", {"a-rating": n, "a-uncertainty": "100"}).content for n in numbers
    }
    assert len(pages) == 1
    assert cached_entries("page") == 1


def test_history_cursors_are_stored_in_the_form_their_links_write(client, rating):
    profile = f"/player/{rating.player_id}/{rating.character.code.lower()}"
    for cursor in ("1700000000000000-5", "01700000000000000-05", "+1700000000000000-5"):
        assert client.get(f"{profile}?before={cursor}").status_code == 200
    assert cached_entries("page") == 1


def test_page_renders_are_throttled_per_client_but_cached_pages_are_not(client, rating, settings):
    settings.PAGE_RENDER_RATE = "3/min"
    for page in ("/about", "/stats", "/supporters"):
        assert client.get(page).status_code == 200

    refused = client.get("/lab")
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 60
    assert b"Too many requests" in refused.content
    assert client.get("/about").status_code == 200  # cached: costs nothing, never refused
    other = client.get("/lab", REMOTE_ADDR="192.0.2.7")
    assert other.status_code == 200
    assert cached_entries("page") == 4


def test_a_refusal_is_plain_and_costs_no_query(client, rating, settings, django_assert_num_queries):
    settings.PAGE_RENDER_RATE = "1/min"
    assert client.get("/about").status_code == 200

    with django_assert_num_queries(0):
        refused = client.get("/stats")

    assert refused.status_code == 429
    assert refused["Content-Type"].startswith("text/plain")
    assert 0 < int(refused["Retry-After"]) <= 60


def test_a_worker_refuses_a_refused_client_again_without_the_cache(
    client, rating, settings, monkeypatch, caplog
):
    settings.PAGE_RENDER_RATE = "1/min"
    assert client.get("/about").status_code == 200
    with caplog.at_level(logging.WARNING):
        assert client.get("/stats").status_code == 429
    assert [r.name for r in caplog.records] == ["web.caching"]
    caplog.clear()
    asked = counting(monkeypatch, caching.PageRenderThrottle, "allow_request")
    slots = counting(monkeypatch, caches["default"], "add")

    with caplog.at_level(logging.WARNING):
        again = [client.get(page) for page in ("/stats", "/lab", "/supporters")]

    assert [r.status_code for r in again] == [429, 429, 429]
    assert all(0 < int(r["Retry-After"]) <= 60 for r in again)
    assert asked == slots == []
    assert caplog.records == []  # one line, at the first refusal of the window
    assert client.get("/stats", REMOTE_ADDR="192.0.2.7").status_code == 200


def test_a_client_has_one_page_rendered_at_a_time(client, rating, monkeypatch):
    """A second uncached request while the client's first renders (in another thread or
    worker: here, from inside the first render) is refused at once; another client's is
    not, and the client renders again once its first render is done."""
    during: dict[str, HttpResponse] = {}
    render = about_view.render

    def render_while_asking(*args, **kwargs):
        during["same"] = client.get("/stats")
        during["other"] = client.get("/stats?x", REMOTE_ADDR="192.0.2.7")
        return render(*args, **kwargs)

    monkeypatch.setattr(about_view, "render", render_while_asking)
    assert client.get("/about").status_code == 200

    assert during["same"].status_code == 429
    assert during["same"]["Retry-After"] == "1"
    assert during["other"].status_code == 200
    assert client.get("/supporters").status_code == 200  # the slot is free again


def test_a_second_render_waits_for_the_first_while_a_waiting_thread_is_free(db):
    """A browser's second tab is rendered once the first is done; a client on more
    connections than the worker's waiting threads is refused at once."""
    request = RequestFactory().get("/about")
    first = caching.RenderAdmission(request)
    assert first.refuse() is None
    threading.Timer(0.2, first.release).start()

    second = caching.RenderAdmission(request)
    assert second.refuse() is None  # waited for the slot
    held = [caching._waiting.acquire(blocking=False) for _ in range(caching.WAITING_THREADS)]
    try:
        third = caching.RenderAdmission(request).refuse()
    finally:
        for _ in filter(None, held):
            caching._waiting.release()
        second.release()

    assert all(held)
    assert third.status_code == 429 and third["Retry-After"] == "1"


def test_options_is_answered_without_rendering(client, db, monkeypatch):
    renders = counting(monkeypatch, about_view, "render")
    response = client.options("/about")

    assert response.status_code == 200
    assert response["Allow"] == "GET, HEAD, OPTIONS"
    assert renders == []


def sleeping_names_sql(tiers: tuple[int, ...], rows: int) -> tuple[str, tuple, tuple]:
    return "SELECT pg_sleep(2)", (), ()


@pytest.mark.parametrize("url", ["/search?name=qjx", "/api/v1/players/?name=qjx"])
def test_a_search_past_its_time_is_a_503_never_stored(client, db, settings, monkeypatch, url):
    settings.SEARCH_TIMEOUT_MS = 50
    monkeypatch.setattr(search_selector, "_names_sql", sleeping_names_sql)

    response = client.get(url)

    assert response.status_code == 503
    assert response["Retry-After"]
    assert not [key for key in cache._cache if ":page:" in key or ":api:" in key]


def redis_cache(settings) -> None:
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ.get("REDIS_TEST_URL", "redis://127.0.0.1:6379/15"),
        }
    }


def test_a_redis_cache_without_a_memory_limit_and_eviction_is_refused(settings, monkeypatch):
    redis_cache(settings)
    for memory in [
        (0, "noeviction"),
        (0, "allkeys-lru"),
        (2**30, "noeviction"),
        (2**30, "volatile-lru"),
    ]:
        monkeypatch.setattr(checks, "redis_memory_settings", lambda location, m=memory: m)
        assert [error.id for error in checks.redis_cache_is_bounded()] == ["web.E002"]
    monkeypatch.setattr(checks, "redis_memory_settings", lambda location: (2**30, "allkeys-lru"))
    assert checks.redis_cache_is_bounded() == []


def test_the_check_reads_a_real_redis_server(settings):
    redis_cache(settings)
    maxmemory, policy = checks.redis_memory_settings(settings.CACHES["default"]["LOCATION"])
    bounded = maxmemory > 0 and policy in checks.EVICTING_POLICIES
    assert (checks.redis_cache_is_bounded() == []) == bounded
