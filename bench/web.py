"""`make bench-web`: server time of every page with 10,000 and 1,000,000 games in PostgreSQL.

For each size, a database `bench_web_<games>` is built once (simulated league →
import_replays → recompute_ratings → refresh_derived_tables) and reused while it holds
that many games. A child process per size then requests each page 200 times through
Django's test client, in-process (no network), twice: with the page cache off (every
request renders from the database) and on (the generation-keyed page cache, in local
memory). Each of those is timed again with the request metrics off (web.metrics'
middleware taken out), page by page right after the run with them: the cost of /metrics
on every page (issue 34: at most 5%). A trivial view in the same run gives the floor. The
run is appended to docs/benchmarks-history.md and its row of BENCHMARKS.md rewritten.

    python -m bench.web [--games 10000 1000000] [--requests 200]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from django.http import HttpRequest, HttpResponse
from django.urls import include, path

from bench import postgres
from bench.report import Figure, append_section, machine_description

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
SEED = 2026
WARMUP = 5
METRICS_MIDDLEWARE = "web.metrics.count_requests"
NO_METRICS = "without metrics"


def trivial(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok")


def __getattr__(name: str) -> list:
    """`urlpatterns`, built on first use: the child process serves the site under this
    URLconf, with the trivial view added (the orchestrator never sets Django up)."""
    if name == "urlpatterns":
        return [path("bench/trivial", trivial), path("", include("ratingsite.urls"))]
    raise AttributeError(name)


def players_for(games: int) -> int:
    """About 50 games a player, so that at both sizes most players are still ranked when
    the league ends and every list (top 100, a character's, page 10) is full: a page that
    shows 5 rows at one size and 100 at the other would measure rows, not data size."""
    return min(100_000, max(200, games // 50))


def _manage(arguments: list[str], database_url: str) -> None:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *arguments],
        env={**os.environ, "DATABASE_URL": database_url},
        check=True,
    )
    print(f"  {arguments[0]}: {time.perf_counter() - started:.0f} s", flush=True)


def ensure_database(games: int) -> str:
    """The URL of a database holding a rated league of `games` games (built if needed)."""
    name = f"bench_web_{games}"
    url = postgres.url(name)
    if postgres.holds_rated_league(name, games):
        print(f"[{games:,} games] reusing database {name}", flush=True)
        vacuum(url)
        return url
    print(f"[{games:,} games] building database {name}", flush=True)
    postgres.recreate(name)
    OUT.mkdir(parents=True, exist_ok=True)
    players = players_for(games)
    league = OUT / f"league-{players}-{games}-{SEED}.jsonl.gz"
    if not league.exists():
        _manage(
            [
                "simulate_league",
                *("--players", str(players), "--games", str(games)),
                *("--seed", str(SEED), "--out", str(league)),
            ],
            url,
        )
    _manage(["migrate", "--no-input", "-v0"], url)
    _manage(["import_replays", str(league)], url)
    subprocess.run([sys.executable, "-m", "bench.web", "--rate"], env=_env(url), check=True)
    vacuum(url)
    return url


def vacuum(url: str) -> None:
    """VACUUM ANALYZE, as autovacuum does on a live server (it is off on some machines,
    this one included): without it a freshly loaded database has no planner statistics,
    no visibility map, and GIN pending lists that every name search reads through."""
    started = time.perf_counter()
    subprocess.run(["psql", url, "-q", "-c", "VACUUM (ANALYZE)"], check=True)
    print(f"  vacuum analyze: {time.perf_counter() - started:.0f} s", flush=True)


def _env(database_url: str) -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "ratingsite.settings",
    }


# --- In the child process (Django set up against one database) --------------------------


def _setup() -> None:
    import django

    django.setup()


def rate() -> None:
    """Ratings and site statistics as of the league's last game: decayed to today, months
    after the simulated season, no rating would be ranked and every ranking would be empty."""
    _setup()
    from django.db.models import Max

    from matches.models import Match
    from matches.services.rating.recompute import recompute_all_ratings
    from matches.services.refresh import refresh_derived_tables

    last = Match.objects.aggregate(last=Max("played_at"))["last"]
    for step in (recompute_all_ratings, refresh_derived_tables):
        started = time.perf_counter()
        step(now=last)
        print(f"  {step.__name__}: {time.perf_counter() - started:.0f} s", flush=True)


def _pages() -> dict[str, str]:
    """The pages to time, with real ids and names from the database."""
    from players.selectors.rankings import ranked_ratings

    busiest = ranked_ratings().order_by("-wins").first()
    player, code = busiest.player_id, busiest.character.code
    name = busiest.player.name
    fragment = name[len(name) // 4 : len(name) // 4 + 4]
    return {
        "trivial view": "/bench/trivial",
        "top 100": "/",
        "top 100, one per player": "/?per=player",
        "top 100 of a character": f"/top/{code}",
        "rankings page 10": "/?page=10",
        "top 100 active in 30 days": "/?active=30",
        "search": f"/search?name={fragment}",
        "player → best character": f"/player/{player}",
        "profile (30 days)": f"/player/{player}/{code}",
        "profile (all, page 2)": f"/player/{player}/{code}?range=all&before="
        + _second_page_cursor(busiest),
        "matchups": "/matchups?bracket=top1000",
        "matchups (proportional)": "/matchups?bracket=proportional",
        "calculator (two players)": f"/calculator?a-player={player}&a-character={code}"
        f"&b-rating=1700&b-uncertainty=120",
        "stats": "/stats",
        "recent (notable games)": "/recent",
        "about": "/about",
    }


def _second_page_cursor(rating: object) -> str:
    from matches.selectors.match_history import match_sets

    return str(match_sets(rating).next_cursor)


def _timings(client: object, url: str, requests: int) -> list[float]:
    for _ in range(WARMUP):
        client.get(url)
    times = []
    for _ in range(requests):
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        if response.status_code not in (200, 302):
            raise RuntimeError(f"{url} answered {response.status_code}")
    return times


def _summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "median": statistics.median(ordered),
        "p95": ordered[min(len(ordered) - 1, round(0.95 * len(ordered)) - 1)],
    }


def measure(requests: int) -> dict[str, dict]:
    _setup()
    from django.conf import settings
    from django.db import connection
    from django.test import Client, override_settings
    from django.test.utils import CaptureQueriesContext

    plain_static = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    caches = {
        "off": {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}},
        "on": {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}},
    }
    without_metrics = [name for name in settings.MIDDLEWARE if name != METRICS_MIDDLEWARE]
    results: dict[str, dict] = {}
    with override_settings(ROOT_URLCONF="bench.web", STORAGES=plain_static):
        pages = _pages()
        client = Client()
        for mode, cache in caches.items():
            with override_settings(CACHES=cache):
                for label, url in pages.items():
                    entry = results.setdefault(label, {"url": url})
                    if mode == "off":
                        with CaptureQueriesContext(connection) as queries:
                            client.get(url)
                        entry["queries"] = len(queries)
                    entry[mode] = _summary(_timings(client, url, requests))
                    with override_settings(MIDDLEWARE=without_metrics):
                        entry[f"{mode} {NO_METRICS}"] = _summary(_timings(client, url, requests))
    return results


# --- The orchestrator -------------------------------------------------------------------


def _cell(entry: dict, mode: str) -> str:
    return f"{entry[mode]['median']:.2f} / {entry[mode]['p95']:.2f}"


def page_ratios(runs: dict[int, dict[str, dict]]) -> dict[str, tuple[float, float]]:
    """Each page's uncached median at the largest size over its median at the smallest
    and over the trivial view's at the largest size."""
    small, large = runs[min(runs)], runs[max(runs)]
    trivial_median = large["trivial view"]["off"]["median"]
    return {
        label: (
            large[label]["off"]["median"] / small[label]["off"]["median"],
            large[label]["off"]["median"] / trivial_median,
        )
        for label in large
        if label != "trivial view"
    }


def metrics_costs(run: dict[str, dict]) -> dict[tuple[str, str], float]:
    """Each page's median with the request metrics over its median without, uncached
    ("off") and cached ("on")."""
    return {
        (label, mode): entry[mode]["median"] / entry[f"{mode} {NO_METRICS}"]["median"]
        for label, entry in run.items()
        for mode in ("off", "on")
    }


def figure(runs: dict[int, dict[str, dict]]) -> Figure:
    """The run in a row: the worst growth with the database, and the cached pages."""
    sizes = " and ".join(f"{games:,}" for games in sorted(runs))
    large = runs[max(runs)]
    trivial = large["trivial view"]["on"]["median"]
    slowest_cached = max(large, key=lambda label: large[label]["on"]["median"])
    cached = large[slowest_cached]["on"]["median"]
    text = (
        f"cached: every page within {cached / trivial:.2f}x the trivial view "
        f"({cached:.2f} ms, {slowest_cached})"
    )
    if len(runs) > 1:
        ratios = page_ratios(runs)
        worst = max(ratios, key=lambda label: ratios[label][0])
        over_trivial = [ratio for _, ratio in ratios.values()]
        text = (
            f"uncached: worst median {ratios[worst][0]:.2f}x from {min(runs):,} to "
            f"{max(runs):,} games ({worst}); {text}; uncached pages take "
            f"{min(over_trivial):.1f}x to {max(over_trivial):.0f}x the trivial view"
        )
    costs = {
        (games, *key): ratio
        for games, run in runs.items()
        for key, ratio in metrics_costs(run).items()
    }
    games, label, mode = max(costs, key=costs.get)
    text += (
        f"; request metrics cost at most {100 * (costs[games, label, mode] - 1):+.1f}% of a "
        f"median ({label}, {'cached' if mode == 'on' else 'uncached'}, {games:,} games)"
    )
    return Figure(
        "make bench-web",
        f"server time of every page at {sizes} games",
        text,
        "median at the larger size ≤ 1.5x at the smaller; ≤ 3x the trivial view; "
        "request metrics ≤ 5% of every page (issue 34)",
    )


def report(runs: dict[int, dict[str, dict]], requests: int) -> list[str]:
    sizes = sorted(runs)
    header = "| page | queries |" + "".join(
        f" {games:,} games: no cache | {games:,}: cached |" for games in sizes
    )
    lines = [
        machine_description(),
        "",
        f"Command: `make bench-web` (`python -m bench.web`). Median / p95 server time in ms "
        f"over {requests} requests per page, through Django's test client in one process "
        f"(middleware, view, queries, template; no network), after {WARMUP} warm-up requests. "
        "'No cache': the page cache is off, every request renders from PostgreSQL. "
        "'Cached': the generation-keyed page cache in local memory (Redis in production). "
        "Each database is vacuumed and analyzed first, as autovacuum would have done.",
        "",
        header,
        "|---|---:|" + "---:|---:|" * len(sizes),
    ]
    for label in runs[sizes[0]]:
        row = f"| {label} | {runs[sizes[-1]][label]['queries']} |"
        row += "".join(
            f" {_cell(runs[g][label], 'off')} | {_cell(runs[g][label], 'on')} |" for g in sizes
        )
        lines.append(row)
    if len(sizes) > 1:
        lines += [
            "",
            f"Ratios of medians, {sizes[-1]:,} against {sizes[0]:,} games (target ≤ 1.5) "
            "and against the trivial view at the larger size (target ≤ 3), without the cache:",
            "",
            "| page | large / small | large / trivial |",
            "|---|---:|---:|",
        ]
        for label, (ratio, trivial_ratio) in page_ratios(runs).items():
            lines.append(f"| {label} | {ratio:.2f} | {trivial_ratio:.1f} |")
    lines += [
        "",
        "Medians with the request metrics (web.metrics.count_requests) over the same page's "
        "without them, timed right after (target ≤ 1.05):",
        "",
        "| page |" + "".join(f" {games:,}: no cache | {games:,}: cached |" for games in sizes),
        "|---|" + "---:|---:|" * len(sizes),
    ]
    costs = {games: metrics_costs(runs[games]) for games in sizes}
    for label in runs[sizes[0]]:
        cells = (f" {costs[g][label, 'off']:.3f} | {costs[g][label, 'on']:.3f} |" for g in sizes)
        lines.append(f"| {label} |" + "".join(cells))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, nargs="+", default=[10_000, 1_000_000])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--rate", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.rate:
        rate()
        return
    if options.measure:
        print(json.dumps(measure(options.requests)))
        return
    runs = {}
    for games in options.games:
        url = ensure_database(games)
        print(f"[{games:,} games] timing {options.requests} requests per page", flush=True)
        child = subprocess.run(
            [sys.executable, "-m", "bench.web", "--measure", "--requests", str(options.requests)],
            env=_env(url),
            capture_output=True,
            text=True,
            check=True,
        )
        runs[games] = json.loads(child.stdout.strip().splitlines()[-1])
        for label, entry in runs[games].items():
            print(f"  {label:28} {_cell(entry, 'off'):>16} ms  cached {_cell(entry, 'on'):>14} ms")
    lines = report(runs, options.requests)
    print("\n".join(lines))
    append_section(
        "Web pages: " + ", ".join(f"{games:,}" for games in sorted(runs)) + " games",
        lines,
        figure(runs),
    )


if __name__ == "__main__":
    main()
