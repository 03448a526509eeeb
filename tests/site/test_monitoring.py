"""Probes, /metrics and log lines as a client and an operator see them (issue 34)."""

from __future__ import annotations

import io
import json
import logging
import logging.config
import time
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from matches.models import IngestRun
from matches.replays.readers import iter_replay_payloads
from matches.services.ingest import finish_run, start_run, store_replays
from matches.services.rating.incremental import rate_pending_matches
from matches.services.refresh import refresh_site
from matches.sources.pulling import add_source
from ratingsite.celery import app as celery_app
from tests.factories import replay, store_calibration
from web.logs import logging_config
from web.metrics import (
    REQUEST_SECONDS,
    TASKS,
    empty_multiprocess_folder,
    flush_request_observations,
)

pytestmark = pytest.mark.django_db


def samples(client, **headers) -> dict[tuple[str, tuple], float]:
    """/metrics read as Prometheus reads it: {(name, sorted labels): value}."""
    response = client.get("/metrics", **headers)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    }


# --- probes ---------------------------------------------------------------------------


def test_healthz_and_readyz_answer_any_host_uncached(client):
    for path in ("/healthz", "/readyz"):
        response = client.get(path, HTTP_HOST="10.1.2.3:8000")  # a probe's Host: an address
        assert response.status_code == 200, response.content
        assert "no-store" in response["Cache-Control"]
        assert not response.has_header("ETag")
    body = client.get("/readyz").json()
    assert body == {
        "status": "ok",
        "failing": [],
        "checks": {"database": "ok", "migrations": "ok", "cache": "ok", "broker": "ok"},
    }


def test_probes_are_never_throttled_nor_redirected_to_https(client, settings):
    settings.SECURE_SSL_REDIRECT = True
    statuses = {client.get("/readyz").status_code for _ in range(200)}
    assert statuses == {200}


def test_readyz_names_unapplied_migrations(client):
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM django_migrations WHERE app = 'matches' AND name LIKE '0010%'")
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["failing"] == ["migrations"]
    assert response.json()["checks"]["migrations"] == "1 migrations not applied"


def test_readyz_names_a_filesystem_broker_it_cannot_write_to(client, settings, tmp_path):
    settings.CELERY_BROKER_URL = "filesystem://"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"data_folder_out": str(tmp_path / "gone")}
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["failing"] == ["broker"]
    (tmp_path / "gone").mkdir()
    assert client.get("/readyz").status_code == 200


def test_the_development_server_does_not_log_probes():
    server = logging.getLogger("django.server")
    lines = []
    handler = logging.Handler()
    handler.emit = lambda record: lines.append(record.getMessage())
    server.addHandler(handler)
    try:
        for path in ("/readyz", "/healthz", "/"):
            server.info('"%s" %s %s', f"GET {path} HTTP/1.1", "200", "2")
    finally:
        server.removeHandler(handler)
    assert lines == ['"GET / HTTP/1.1" 200 2']


# --- /metrics access ------------------------------------------------------------------


def test_metrics_only_for_allowed_addresses_or_the_token(client, settings):
    settings.METRICS_BEARER_TOKEN = "s3cret"
    assert client.get("/metrics").status_code == 200  # the test client is 127.0.0.1
    outside = {"REMOTE_ADDR": "203.0.113.9"}
    assert client.get("/metrics", **outside).status_code == 403
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong", **outside).status_code == 403
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret", **outside).status_code == 200
    settings.METRICS_ALLOWED_ADDRESSES = ["10.0.0.0/8"]
    assert client.get("/metrics", REMOTE_ADDR="10.4.5.6").status_code == 200


def test_behind_a_proxy_the_forwarded_client_is_checked_not_the_proxy(client, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    # A public client through a proxy on the same machine is not the machine itself.
    public = client.get("/metrics", HTTP_X_FORWARDED_FOR="198.51.100.7")
    assert public.status_code == 403
    assert client.get("/metrics", HTTP_X_FORWARDED_FOR="127.0.0.1").status_code == 200


# --- /metrics content -----------------------------------------------------------------


def test_requests_are_observed_by_view_status_and_cache_lookup(client, league):
    before = samples(client)
    for _ in range(2):
        assert client.get("/").status_code == 200
        assert client.get("/api/v1/characters/").status_code == 200
    assert client.get("/no-such-page").status_code == 404
    after = samples(client)

    def added(view: str, status: str, cache: str) -> float:
        labels = {"view": view, "method": "GET", "status": status, "cache": cache}
        key = ("ratings_http_request_duration_seconds_count", tuple(sorted(labels.items())))
        return after.get(key, 0.0) - before.get(key, 0.0)

    # One observation a request; the first of each cached view misses, the second hits.
    assert added("top", "200", "miss") == 1
    assert added("top", "200", "hit") == 1
    assert added("v1:characters", "200", "miss") == 1
    assert added("v1:characters", "200", "hit") == 1
    # No whole-response cache lookup: neither a 404 nor the scrape itself.
    assert added("unmatched", "404", "none") == 1
    assert added("metrics", "200", "none") == 1
    assert not any(name.startswith("ratings_http_requests") for name, _ in after)
    assert not any(name.startswith("ratings_response_cache") for name, _ in after)


def test_a_request_is_written_to_the_metrics_within_a_second_without_a_scrape(client):
    """Observations wait in the process and are written in batches; a process that gets no
    further request (nor a scrape) still writes what waits within FLUSH_SECONDS."""

    def answered() -> float:
        return sum(
            sample.value
            for metric in REQUEST_SECONDS.collect()
            for sample in metric.samples
            if sample.name.endswith("_count") and sample.labels["view"] == "about"
        )

    flush_request_observations()  # what earlier tests left waiting (and the writer started)
    before = answered()
    assert client.get("/about").status_code == 200
    deadline = time.monotonic() + 3
    while answered() == before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert answered() == before + 1


def test_pipeline_gauges_are_read_from_the_database_at_scrape_time(client):
    source = add_source(name="feed", kind="http", settings={"url": "http://127.0.0.1:9/"})
    quiet = add_source(name="quiet", kind="http", settings={"url": "http://127.0.0.1:9/"})
    store_calibration(1.08)
    run = start_run(source)
    result = store_replays(
        source=source, replays=iter_replay_payloads([replay(n) for n in range(5)]), run=run
    )
    finish_run(run, result)
    IngestRun.objects.filter(pk=run.pk).update(finished_at=timezone.now() - timedelta(minutes=3))
    type(quiet).objects.filter(pk=quiet.pk).update(
        created_at=timezone.now() - timedelta(minutes=20)
    )

    waiting = samples(client)
    assert waiting[("ratings_games_waiting", ())] == 5
    assert waiting[("ratings_source_games_waiting", (("source", "feed"),))] == 5
    assert waiting[("ratings_source_games_waiting", (("source", "quiet"),))] == 0
    assert 180 <= waiting[("ratings_source_lag_seconds", (("source", "feed"),))] < 240
    assert 1200 <= waiting[("ratings_source_lag_seconds", (("source", "quiet"),))] < 1260
    assert 0 <= waiting[("ratings_games_waiting_oldest_age_seconds", ())] < 60
    assert waiting[("ratings_calibration_temperature", ())] == 1.08
    assert waiting[("ratings_source_games_pulled_total", (("source", "feed"),))] >= 5

    rate_pending_matches()
    refresh_site(evaluate_lab=lambda: None)
    rated = samples(client)
    assert rated[("ratings_games_waiting", ())] == 0
    assert rated[("ratings_games_waiting_oldest_age_seconds", ())] == 0
    rated_total = ("ratings_games_rated_total", ())
    assert rated[rated_total] - waiting[rated_total] == 5
    assert rated[("ratings_refresh_duration_seconds", ())] > 0
    steps = {
        labels[0][1]: value
        for (name, labels), value in rated.items()
        if name == "ratings_refresh_step_duration_seconds"
    }
    assert set(steps) == {
        "decay", "patches", "character_matchups", "statistics", "seasons", "win_trading"
    }  # fmt: skip
    assert 0 < sum(steps.values()) <= rated[("ratings_refresh_duration_seconds", ())]
    finished = rated[("ratings_refresh_last_finished_timestamp_seconds", ())]
    assert abs(finished - timezone.now().timestamp()) < 60


# --- logs -----------------------------------------------------------------------------


@pytest.fixture
def json_log(settings):
    """The site's logging in LOG_FORMAT=json, written to a string."""
    stream = io.StringIO()
    config = logging_config("json", "INFO")
    config["handlers"]["console"]["stream"] = stream
    logging.config.dictConfig(config)
    yield stream
    logging.config.dictConfig(settings.LOGGING)


def test_json_log_lines_carry_the_request_id_the_response_returns(client, json_log):
    response = client.get("/no-such-page")
    lines = [json.loads(line) for line in json_log.getvalue().splitlines()]
    assert response.status_code == 404
    [line] = [line for line in lines if line["logger"] == "django.request"]
    assert line["level"] == "WARNING" and line["message"] == "Not Found: /no-such-page"
    assert line["request_id"] == response["X-Request-ID"] and len(line["request_id"]) == 32
    assert {"time", "source", "task_id"} <= set(line)


def test_an_invalid_parameter_is_one_log_line_without_its_traceback(client, json_log):
    response = client.get("/?active=31")
    lines = [json.loads(line) for line in json_log.getvalue().splitlines()]
    assert response.status_code == 400
    [line] = [line for line in lines if line["logger"] == "django.request"]
    assert line["level"] == "WARNING" and "takes 30 (days)" in line["message"]
    assert "exc_info" not in line and "Traceback" not in json_log.getvalue()


def test_a_proxys_request_id_is_kept_only_when_proxies_are_trusted(client, settings):
    given = {"HTTP_X_REQUEST_ID": "edge-1234.abc"}
    assert client.get("/healthz", **given)["X-Request-ID"] != "edge-1234.abc"
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    assert client.get("/healthz", **given)["X-Request-ID"] == "edge-1234.abc"
    forged = client.get("/healthz", HTTP_X_REQUEST_ID="x\nFAKE LOG LINE")["X-Request-ID"]
    assert "\n" not in forged and len(forged) == 32


def test_a_pulls_log_lines_name_its_source(json_log):
    from web import logs
    from web.logs import log_context

    with log_context(logs.source, "feed"):
        logging.getLogger("matches.sources.pulling").warning("slow feed")
    [line] = [json.loads(line) for line in json_log.getvalue().splitlines()]
    assert (line["source"], line["message"], line["request_id"]) == ("feed", "slow feed", None)


def test_a_new_start_forgets_the_samples_of_the_last_one(settings, tmp_path):
    settings.PROMETHEUS_MULTIPROC_DIR = str(tmp_path)
    (tmp_path / "counter_4242.db").write_bytes(b"old counts")
    (tmp_path / "README").write_text("not a sample file")
    empty_multiprocess_folder()
    assert [path.name for path in tmp_path.iterdir()] == ["README"]


@celery_app.task(name="tests.site.log_a_line")
def log_a_line() -> None:
    logging.getLogger("tests").warning("inside a task")


def test_a_tasks_log_lines_carry_its_id_and_its_end_is_counted(json_log):
    succeeded = TASKS.labels("tests.site.log_a_line", "success")
    before = succeeded._value.get()
    log_a_line.apply(task_id="task-42")
    lines = [json.loads(line) for line in json_log.getvalue().splitlines()]
    [line] = [line for line in lines if line["message"] == "inside a task"]
    assert line["task_id"] == "task-42"
    assert succeeded._value.get() == before + 1
    logging.getLogger("tests").warning("after the task")
    assert json.loads(json_log.getvalue().splitlines()[-1])["task_id"] is None
