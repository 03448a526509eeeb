"""`make bench-api`: requests/s and latency of the REST API under load, served by gunicorn.

A PostgreSQL database `bench_api_<games>` is built once (simulated league → store_replays →
recompute_all_ratings → refresh_derived_tables as of the last game → VACUUM ANALYZE) and
reused while it holds that many games. gunicorn then serves the site with 4 workers of 4
threads (as in production) on 127.0.0.1 (throttles, the generation key and the response
cache on a private Redis when `redis-server` is installed, else on a fresh file cache), and
this process, a second one, loads it over loopback with a few threads, a new connection per
request. For each endpoint, up to 500 distinct URLs drawn
from the database are requested once each (cold: built from the database) and then again
and again (warm: answered from the generation-keyed response cache). A trivial API view
(same middleware, throttle and ETag wrapper, no database) in the same server gives the
floor. Every response must be a 200. The run is appended to docs/benchmarks-history.md
and its row of BENCHMARKS.md rewritten.

    python -m bench.api [--games 1000000] [--requests 3000] [--concurrency 4] [--database NAME]

`--database` measures another database holding the league, such as a copy with a
migration applied (`createdb -T bench_api_1000000 NAME`, then `manage.py migrate` on it),
leaving the shared one as it is.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from bench import postgres
from bench.report import Figure, append_section, machine_description
from bench.web import players_for

ROOT = Path(__file__).resolve().parent.parent
SEED = 2026
# As the README's production section serves: gthread workers.
WORKERS = 4
THREADS = 4
URLS_PER_ENDPOINT = 500
WARMUP_REQUESTS = 100
TRIVIAL = "/bench/trivial/"

# --- Serving: the site plus the trivial view, for gunicorn ----------------------------------


def __getattr__(name: str) -> Any:
    """`urlpatterns` (this module is the server's URLconf), built on first use so that the
    orchestrator can import the module without Django being set up."""
    if name == "urlpatterns":
        from django.urls import include, path
        from rest_framework.response import Response
        from rest_framework.views import APIView

        from web.api import conditional

        class Trivial(APIView):
            def get(self, request: Any) -> Response:
                return Response({"ok": True})

        return [
            path(TRIVIAL.strip("/") + "/", conditional(Trivial.as_view(), max_age=60)),
            path("", include("ratingsite.urls")),
        ]
    raise AttributeError(name)


def wsgi() -> Callable:
    """gunicorn's application factory (`bench.api:wsgi()`): the site under this URLconf."""
    from django.conf import settings
    from django.core.wsgi import get_wsgi_application

    application = get_wsgi_application()
    settings.ROOT_URLCONF = __name__
    return application


# --- The database ---------------------------------------------------------------------------


def _timed(label: str, step: Callable[[], Any]) -> Any:
    started = time.perf_counter()
    result = step()
    print(f"  {label}: {time.perf_counter() - started:.0f} s", flush=True)
    return result


def _build(games: int) -> None:
    """Simulated league → store_replays → recompute_all_ratings → refresh_derived_tables."""
    from django.core.management import call_command
    from django.db import connection
    from django.db.models import Max

    from matches.models import Match
    from matches.replays.readers import iter_replay_payloads
    from matches.services.file_import import file_import_source
    from matches.services.ingest import store_replays
    from matches.services.rating.recompute import recompute_all_ratings
    from matches.services.refresh import refresh_derived_tables
    from matches.simulation.league import LeagueSimulator

    call_command("migrate", "--no-input", verbosity=0)
    league = LeagueSimulator(players=players_for(games), seed=SEED)
    _timed(
        "store_replays",
        lambda: store_replays(
            source=file_import_source(), replays=iter_replay_payloads(league.games(games))
        ),
    )
    # Rated and refreshed as of the league's last game: decayed to today, months after
    # the simulated season, no rating would be ranked and every ranking would be empty.
    last = Match.objects.aggregate(last=Max("played_at"))["last"]
    _timed("recompute_all_ratings", lambda: recompute_all_ratings(now=last))
    _timed("refresh_derived_tables", lambda: refresh_derived_tables(now=last))
    # As autovacuum would after a bulk load: the planner needs statistics.
    with connection.cursor() as cursor:
        _timed("vacuum analyze", lambda: cursor.execute("VACUUM ANALYZE"))


def prepare_database(games: int, name: str | None = None) -> str:
    """Point Django at `name` (`bench_api_<games>` by default), building it unless it
    already holds the league."""
    name = name or f"bench_api_{games}"
    os.environ["DATABASE_URL"] = postgres.url(name)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratingsite.settings")
    import django

    ready = postgres.holds_rated_league(name, games)
    if not ready:
        print(f"[{games:,} games] building database {name}", flush=True)
        postgres.recreate(name)
    django.setup()
    if ready:
        print(f"[{games:,} games] reusing database {name}", flush=True)
    else:
        _build(games)
    return os.environ["DATABASE_URL"]


def workload(rng: random.Random) -> dict[str, list[str]]:
    """Distinct URLs per endpoint, drawn from the database."""
    from players.models import Player, Rating
    from players.selectors.rankings import ranked_count
    from players.selectors.ratings import characters

    pages = min(URLS_PER_ENDPOINT, max(1, -(-ranked_count() // 100)))
    ratings = list(
        Rating.objects.filter(player__hidden=False)
        .order_by("?")
        .values_list("player_id", "character__code")[:URLS_PER_ENDPOINT]
    )
    fragments: set[str] = set()
    for name in Player.objects.visible().order_by("?").values_list("name", flat=True)[:5000]:
        if len(name) >= 3 and len(fragments) < URLS_PER_ENDPOINT:
            start = rng.randrange(len(name) - 2)
            fragments.add(name[start : start + rng.randint(3, 6)])
    return {
        "rankings/": [f"/api/v1/rankings/?page={page}" for page in range(1, pages + 1)],
        "rankings/{char}/": [f"/api/v1/rankings/{c.code}/" for c in characters()],
        "players/{id}/{char}/": [f"/api/v1/players/{p}/{c}/" for p, c in ratings],
        "players/?name=": [
            "/api/v1/players/?" + urlencode({"name": fragment}) for fragment in sorted(fragments)
        ],
        "recent/": ["/api/v1/recent/"],
    }


# --- Server processes -------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for(port: int, path: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", path)
            if connection.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"nothing answered {path} on port {port}")


@contextmanager
def _process(
    arguments: list[str], env: dict[str, str], *, quiet: bool = False
) -> Iterator[subprocess.Popen]:
    output = subprocess.DEVNULL if quiet else None
    process = subprocess.Popen(arguments, env=env, cwd=ROOT, stdout=output)
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def private_cache() -> Iterator[tuple[str, str]]:
    """A private Redis for throttles and the generation key, else a fresh file cache."""
    if shutil.which("redis-server") is None:
        with tempfile.TemporaryDirectory(prefix="bench-api-cache-") as folder:
            yield folder, "file cache"
        return
    port = _free_port()
    arguments = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
    # As production must (web.checks.redis_cache_is_bounded).
    arguments += ["--maxmemory", "256mb", "--maxmemory-policy", "allkeys-lru"]
    with _process([*arguments, "--appendonly", "no"], dict(os.environ), quiet=True):
        for _ in range(100):
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0", "Redis"


@contextmanager
def serve(database_url: str, cache_url: str) -> Iterator[int]:
    """gunicorn with WORKERS workers of THREADS threads on a free loopback port."""
    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "CACHE_URL": cache_url,
        "DEBUG": "0",
        "LOG_LEVEL": "WARNING",
        # One client sends every request: the throttle still runs, but never refuses.
        "API_THROTTLE_RATE": "100000000/min",
    }
    gunicorn = [sys.executable, "-m", "gunicorn", "bench.api:wsgi()"]
    options = ["--workers", str(WORKERS), "--threads", str(THREADS),
               "--bind", f"127.0.0.1:{port}", "--log-level", "warning"]  # fmt: skip
    with _process([*gunicorn, *options], env):
        _wait_for(port, TRIVIAL)
        yield port


# --- Load -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    requests: int
    errors: int
    seconds: float
    latencies: list[float]  # seconds, successful requests only

    @property
    def per_second(self) -> float:
        return self.requests / self.seconds

    def merged(self, other: Result) -> Result:
        return Result(
            self.requests + other.requests,
            self.errors + other.errors,
            self.seconds + other.seconds,
            self.latencies + other.latencies,
        )

    def percentile(self, share: float) -> float:
        if len(self.latencies) == 1:  # an endpoint of one URL (recent/) answered cold once
            return self.latencies[0]
        return statistics.quantiles(self.latencies, n=100, method="inclusive")[round(share) - 1]


def get(port: int, url: str) -> tuple[int, float]:
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", url)
        response = connection.getresponse()
        response.read()
        return response.status, time.perf_counter() - started
    finally:
        connection.close()


def load(port: int, urls: list[str], requests: int, concurrency: int) -> Result:
    """`requests` GETs cycling through `urls`, by `concurrency` threads."""
    order = (urls[i % len(urls)] for i in range(requests))
    lock = threading.Lock()
    latencies: list[float] = []
    errors: list[tuple[str, int]] = []

    def worker() -> None:
        while True:
            with lock:
                url = next(order, None)
            if url is None:
                return
            try:
                status, seconds = get(port, url)
            except OSError:
                status, seconds = 0, 0.0
            with lock:
                if status == 200:
                    latencies.append(seconds)
                else:
                    errors.append((url, status))

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    for url, status in errors[:5]:
        print(f"    error: {status} for {url}", flush=True)
    return Result(requests, len(errors), elapsed, latencies)


@dataclass(frozen=True)
class EndpointResults:
    cold: Result  # every URL once: nothing cached yet, each response built from the database
    warm: Result  # `requests` GETs over the same URLs: served from the generation cache


def _show(label: str, result: Result) -> None:
    print(
        f"  {label:30} {result.per_second:7.0f} req/s  p50 {1000 * result.percentile(50):6.1f} ms"
        f"  p95 {1000 * result.percentile(95):6.1f} ms  errors {result.errors}",
        flush=True,
    )


def run(
    games: int, requests: int, concurrency: int, database: str | None = None
) -> tuple[str, Result, dict[str, EndpointResults]]:
    database_url = prepare_database(games, database)
    urls = workload(random.Random(SEED))
    results: dict[str, EndpointResults] = {}
    with private_cache() as (cache_url, cache_name), serve(database_url, cache_url) as port:
        print(f"gunicorn on 127.0.0.1:{port}, {WORKERS} workers x {THREADS} threads, "
              f"cache: {cache_name}", flush=True)  # fmt: skip
        # Warm the workers (imports, database connections) away from the measured URLs.
        load(port, [TRIVIAL, "/api/v1/characters/", "/api/v1/stats/"], WARMUP_REQUESTS, concurrency)
        first = load(port, [TRIVIAL], requests // 2, concurrency)
        for endpoint, endpoint_urls in urls.items():
            cold = load(port, endpoint_urls, len(endpoint_urls), concurrency)
            _show(f"{endpoint} cold", cold)
            warm = load(port, endpoint_urls, requests, concurrency)
            _show(f"{endpoint} warm", warm)
            results[endpoint] = EndpointResults(cold, warm)
        trivial = first.merged(load(port, [TRIVIAL], requests - requests // 2, concurrency))
        _show("trivial (start and end)", trivial)
    return cache_name, trivial, results


def report(
    games: int,
    requests: int,
    concurrency: int,
    cache_name: str,
    trivial: Result,
    results: dict[str, EndpointResults],
) -> list[str]:
    floor = trivial.percentile(95)
    lines = [
        machine_description(),
        f"Load average when the run ended: {' '.join(f'{x:.2f}' for x in os.getloadavg())}.",
        "",
        f"{games:,} games (simulated league of {players_for(games):,} players) in PostgreSQL; "
        f"gunicorn, {WORKERS} workers x {THREADS} threads on 127.0.0.1, throttle and response "
        f"cache on {cache_name}; "
        f"load from a second process by {concurrency} threads over loopback, a new connection "
        "per request. *Cold*: each of up to "
        f"{URLS_PER_ENDPOINT} distinct URLs once, so every response is built from the "
        f"database; *warm*: {requests} GETs over the same URLs, answered from the "
        "generation-keyed response cache (as between two rating runs). The trivial endpoint "
        "is an API view with the same middleware, throttle and ETag wrapper and no database, "
        "measured at the start and at the end of the run. "
        "Target: p95 within 3 times the trivial endpoint's p95, zero errors.",
        "",
        "| endpoint | pass | URLs | requests/s | p50 ms | p95 ms | p99 ms | p95 / trivial "
        "| errors |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def row(endpoint: str, label: str, urls: int, result: Result) -> str:
        return (
            f"| `{endpoint}` | {label} | {urls} | {result.per_second:.0f} | "
            f"{1000 * result.percentile(50):.1f} | {1000 * result.percentile(95):.1f} | "
            f"{1000 * result.percentile(99):.1f} | {result.percentile(95) / floor:.2f} | "
            f"{result.errors} |"
        )

    lines.append(row("trivial", "-", 1, trivial))
    for endpoint, both in results.items():
        lines.append(row(endpoint, "cold", both.cold.requests, both.cold))
        lines.append(row(endpoint, "warm", both.cold.requests, both.warm))
    return lines


def figure(
    options: argparse.Namespace, trivial: Result, results: dict[str, EndpointResults]
) -> Figure:
    """The run in a row: each pass's range of p95 over the trivial endpoint's, and errors."""
    floor = trivial.percentile(95)

    def spread(runs: list[Result]) -> str:
        ratios = [run.percentile(95) / floor for run in runs]
        return f"{min(ratios):.2f}x to {max(ratios):.2f}x"

    errors = trivial.errors + sum(r.cold.errors + r.warm.errors for r in results.values())
    return Figure(
        "make bench-api",
        f"the REST API under load from {options.concurrency} threads, {options.games:,} games",
        f"p95 over the trivial endpoint's: warm (cached) "
        f"{spread([r.warm for r in results.values()])}, cold "
        f"{spread([r.cold for r in results.values()])}; {errors} errors",
        "p95 ≤ 3x the trivial endpoint's, 0 errors",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=3000, help="per endpoint")
    parser.add_argument("--concurrency", type=int, default=4, help="client threads")
    parser.add_argument(
        "--no-report", action="store_true", help="record nothing (history, BENCHMARKS.md)"
    )
    parser.add_argument("--database", help="the league's database (default bench_api_<games>)")
    options = parser.parse_args()
    cache_name, trivial, results = run(
        options.games, options.requests, options.concurrency, options.database
    )
    lines = report(
        options.games, options.requests, options.concurrency, cache_name, trivial, results
    )
    if options.database:
        lines.insert(2, f"Database: `{options.database}`, a copy of the league's.")
    print("\n".join(lines))
    if not options.no_report:
        append_section(
            "REST API under load (`make bench-api`)", lines, figure(options, trivial, results)
        )
    if trivial.errors or any(r.cold.errors or r.warm.errors for r in results.values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
