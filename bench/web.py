"""`make bench-web`: server time of every page with 10,000, 100,000 and 1,000,000 games in
PostgreSQL.

For each size, a database `bench_web_<games>` is built once (simulated league →
import_replays → recompute_ratings → refresh_derived_tables) and reused while it holds
that many games. A child process per size then requests each page 200 times through
Django's test client, in-process (no network), twice: with the page cache off (every
request renders from the database) and on (the generation-keyed page cache, in local
memory), in 20 rounds that time each page at every size in turn (`_measure_sizes`); a
page's growth with the database is the median of its rounds' ratios, with a 95%
interval. A trivial view in the same run gives the floor. The run is appended to
docs/benchmarks-history.md and its row of BENCHMARKS.md rewritten.

`--metrics-only` measures what /metrics costs every page (issue 34: at most 5%), which
a run like the one above cannot resolve: a few percent is less than the wall-clock noise
between two runs of a page on a shared machine. The same child process, database and
pages, with two clients side by side, one through the site's middleware and one without
the request metrics; in each of many rounds every page gets requests from both in turn
(with, without, without, with, ...), each timed by wall clock and by this process's CPU
time (what the metrics spend is CPU in the site's process; other processes
on the machine stretch the wall clock far more than they stretch it). Per page, the
median of the rounds' with/without ratios and a 95% confidence interval for it (order
statistics, distribution-free). The database's own CPU is left out of both sides, which
makes the ratios an upper bound. `--multiprocess` runs it with PROMETHEUS_MULTIPROC_DIR
set, as gunicorn and Celery run in production (every sample written to a mapped file).

    python -m bench.web [--games 10000 100000 1000000] [--requests 200] [--rounds 20]
    python -m bench.web --metrics-only [--multiprocess] [--games 10000] [--rounds 60] [--pairs 6]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from django.http import HttpRequest, HttpResponse
from django.urls import include, path

from bench import postgres
from bench.report import Figure, append_section, load_line, machine_description

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
SEED = 2026
WARMUP = 5
METRICS_MIDDLEWARE = "web.metrics.count_requests"
METRICS_TARGET = 1.05  # issue 34: /metrics costs no page more than 5%
CONFIDENCE = 0.95


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
    """Each request's ms, after WARMUP untimed ones (they take the cost of coming from
    another page, or from the other size's process: colder processor caches, a cold page
    cache entry)."""
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


PLAIN_STATIC = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
PAGE_CACHES = {
    "off": {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}},
    "on": {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}},
}


def _unnoted(request: HttpRequest, hit: bool) -> None:
    pass


def _clients_with_and_without_metrics() -> tuple[object, object]:
    """A test client through the site's middleware and one without the request metrics.
    A client builds its middleware chain once, at its first request, from the settings
    then in force: so each is built here, under its own settings."""
    from django.conf import settings
    from django.test import Client, override_settings

    with_metrics, without_metrics = Client(), Client()
    with_metrics.handler.load_middleware()
    middleware = [name for name in settings.MIDDLEWARE if name != METRICS_MIDDLEWARE]
    with override_settings(MIDDLEWARE=middleware):
        without_metrics.handler.load_middleware()
    return with_metrics, without_metrics


def serve() -> None:
    """Time pages on command, for the orchestrator's interleaved rounds (`_measure_sizes`).
    First line out: each page's URL, queries and bytes (uncached). Then per line in: a
    JSON command, {"mode": "off" | "on"} switching the page cache, or {"label": ...,
    "requests": n} timing that page; per timing, a line out: each request's ms."""
    _setup()
    from contextlib import ExitStack

    from django.db import connection
    from django.test import Client, override_settings
    from django.test.utils import CaptureQueriesContext

    with override_settings(ROOT_URLCONF="bench.web", STORAGES=PLAIN_STATIC), ExitStack() as mode:
        pages = _pages()
        client = Client()
        described = {}
        mode.enter_context(override_settings(CACHES=PAGE_CACHES["off"]))
        for label, url in pages.items():
            with CaptureQueriesContext(connection) as queries:
                response = client.get(url)
            described[label] = {"url": url, "queries": len(queries), "bytes": len(response.content)}
        print(json.dumps(described), flush=True)
        for line in sys.stdin:
            command = json.loads(line)
            if "mode" in command:
                mode.close()
                mode.enter_context(override_settings(CACHES=PAGE_CACHES[command["mode"]]))
                continue
            times = _timings(client, pages[command["label"]], command["requests"])
            print(json.dumps(times), flush=True)


# Each side of a round takes at least this much CPU: a round of a few cheap requests (the
# trivial view, a cached page: 0.3-1 ms each) is mostly scheduler and cache noise, which
# widens its interval far beyond what the metrics cost.
ROUND_CPU_SECONDS = 0.06


def _timed_get(client: object, url: str) -> tuple[float, float]:
    """Wall-clock and CPU seconds of this process for one request of `url`."""
    wall, cpu = time.perf_counter(), time.process_time()
    response = client.get(url)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if response.status_code not in (200, 302):
        raise RuntimeError(f"{url} answered {response.status_code}")
    return wall, cpu


def _pairs(
    client: object, client_without_metrics: object, url: str, pairs: int, without_first: bool
) -> list[float]:
    """Wall and CPU seconds of `pairs` requests with the request metrics and of as many
    without, one of each in turn (with, without, without, with, ... or the other way
    round), so that both sides see the machine as it was in the same milliseconds. One
    untimed request first takes the cost of coming from another page (colder processor
    caches), which would otherwise fall on whichever side goes first. The noting of cache
    lookups is switched between the requests, outside the timed part."""
    import web.caching

    note = web.caching.note_cache_lookup
    totals = [0.0, 0.0, 0.0, 0.0]  # with: wall, CPU; without: wall, CPU
    try:
        for number in range(-1, 2 * pairs):
            without = (number % 4 in (1, 2)) != without_first
            web.caching.note_cache_lookup = _unnoted if without else note
            wall, cpu = _timed_get(client_without_metrics if without else client, url)
            if number >= 0:
                totals[2 * without] += wall
                totals[2 * without + 1] += cpu
    finally:
        web.caching.note_cache_lookup = note
    return totals


def _requests_a_round(client: object, client_without_metrics: object, url: str, pairs: int) -> int:
    """How many requests each side of a round gets: at least `pairs`, and enough that the
    side takes ROUND_CPU_SECONDS of CPU by the warm-up's cost of a request without
    metrics, so that every page's ratio rests on as much measured time as the dearest."""
    warm_up = _pairs(client, client_without_metrics, url, WARMUP, without_first=False)
    cpu_a_request = warm_up[3] / WARMUP
    return max(pairs, math.ceil(ROUND_CPU_SECONDS / max(cpu_a_request, 1e-6)))


def measure_metrics(rounds: int, pairs: int) -> dict[str, dict]:
    """Per page and page cache mode, how many requests a round's side gets
    (`_requests_a_round`) and each round's (wall, CPU) seconds with the request metrics
    and without (`_pairs`, which side first alternating by round); every page has its
    round before any page has the next, so that a slow minute of the machine falls on
    every page alike."""
    _setup()
    from django.test import override_settings

    results: dict[str, dict] = {}
    with override_settings(ROOT_URLCONF="bench.web", STORAGES=PLAIN_STATIC):
        pages = _pages()
        client, client_without_metrics = _clients_with_and_without_metrics()
        for mode, cache in PAGE_CACHES.items():
            with override_settings(CACHES=cache):
                counts = {
                    label: _requests_a_round(client, client_without_metrics, url, pairs)
                    for label, url in pages.items()
                }
                for label, url in pages.items():
                    results.setdefault(label, {"url": url})[mode] = {
                        "requests": counts[label],
                        "rounds": [],
                    }
                for number in range(rounds):
                    for label, url in pages.items():
                        cell = results[label][mode]
                        first = bool(number % 2)
                        timed = _pairs(client, client_without_metrics, url, cell["requests"], first)
                        cell["rounds"].append(timed)
    return results


# --- The orchestrator -------------------------------------------------------------------


def _cell(entry: dict, mode: str) -> str:
    return f"{entry[mode]['median']:.2f} / {entry[mode]['p95']:.2f}"


def _measure_sizes(urls: dict[int, str], requests: int, rounds: int) -> dict[int, dict]:
    """Every page at every size in interleaved rounds: a child process per size (`serve`),
    and in each round each page is timed at one size right after (or before: the order
    alternates by round) the other, `requests / rounds` requests a side. A slow minute of
    a shared machine then falls on both sizes of a page alike, where timing one size
    after the other had the whole run of one size in another minute (ratios from one run
    to the next moved by 0.4). Per size and page: the queries and bytes, and per cache
    mode the median and p95 of all its requests and each round's median."""
    children = {
        games: subprocess.Popen(
            [sys.executable, "-m", "bench.web", "--serve"],
            env=_env(url),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for games, url in urls.items()
    }
    try:
        runs = {games: json.loads(child.stdout.readline()) for games, child in children.items()}
        each = max(1, math.ceil(requests / rounds))
        order = sorted(children)
        for mode in PAGE_CACHES:
            for child in children.values():
                child.stdin.write(json.dumps({"mode": mode}) + "\n")
            times = {games: {label: [] for label in runs[games]} for games in children}
            for number in range(rounds):
                for label in runs[order[0]]:
                    for games in order if number % 2 == 0 else reversed(order):
                        child = children[games]
                        child.stdin.write(json.dumps({"label": label, "requests": each}) + "\n")
                        child.stdin.flush()
                        times[games][label].append(json.loads(child.stdout.readline()))
            for games, pages in times.items():
                for label, per_round in pages.items():
                    runs[games][label][mode] = {
                        **_summary([ms for timed in per_round for ms in timed]),
                        "rounds": [statistics.median(timed) for timed in per_round],
                    }
    finally:
        for child in children.values():
            child.stdin.close()
            child.wait()
    return runs


FLAT_COST_RATIO = 1.5
# A page is compared like for like when its size at the two sizes of league differs by no
# more than this share: it then shows the same rows, and the ratio is what the data's size
# costs (the smallest league cannot fill rankings page 10 or the matchup brackets).
SAME_ROWS_SHARE = 0.1


def same_rows(small: dict[str, dict], large: dict[str, dict], label: str) -> bool:
    """Whether a page holds about as much at both sizes (SAME_ROWS_SHARE)."""
    little, big = small[label]["bytes"], large[label]["bytes"]
    return abs(big - little) <= SAME_ROWS_SHARE * max(big, little)


def page_ratios(runs: dict[int, dict[str, dict]], small: int) -> dict[str, tuple[float, ...]]:
    """Each page's uncached time at the largest size over the `small` size's (the median
    of the rounds' ratios and its 95% interval, `median_interval`) and its median over the
    trivial view's at the largest size."""
    little, large = runs[small], runs[max(runs)]
    trivial_median = large["trivial view"]["off"]["median"]
    ratios = {}
    for label in large:
        if label != "trivial view":
            rounds = zip(large[label]["off"]["rounds"], little[label]["off"]["rounds"], strict=True)
            growth = median_interval([big / before for big, before in rounds])
            ratios[label] = (*growth, large[label]["off"]["median"] / trivial_median)
    return ratios


def figure(runs: dict[int, dict[str, dict]]) -> Figure:
    """The run in a row: the worst growth with the database from each smaller size, and
    the cached pages."""
    sizes = sorted(runs)
    large = runs[sizes[-1]]
    trivial = large["trivial view"]["on"]["median"]
    slowest_cached = max(large, key=lambda label: large[label]["on"]["median"])
    cached = large[slowest_cached]["on"]["median"]
    text = (
        f"cached: every page within {cached / trivial:.2f}x the trivial view "
        f"({cached:.2f} ms, {slowest_cached})"
    )
    verdict = ""
    if len(sizes) > 1:
        growths, met = [], True
        for small in sizes[:-1]:
            ratios = page_ratios(runs, small)
            alike = [label for label in ratios if same_rows(runs[small], large, label)]
            worst = max(ratios, key=lambda label: ratios[label][0])
            worst_alike = max(alike, key=lambda label: ratios[label][0])
            growth, low, high, _ = ratios[worst]
            growths.append(
                f"{growth:.2f}x (95% interval {low:.2f} to {high:.2f}) from {small:,} "
                f"({worst}), {ratios[worst_alike][0]:.2f}x over the {len(alike)} pages of "
                f"the same size at both ({worst_alike})"
            )
            met &= ratios[worst_alike][0] <= FLAT_COST_RATIO
        over_trivial = [ratio[-1] for ratio in page_ratios(runs, sizes[0]).values()]
        text = (
            f"uncached, worst median to {sizes[-1]:,} games: {'; '.join(growths)}; {text}; "
            f"uncached pages take {min(over_trivial):.1f}x to {max(over_trivial):.0f}x the "
            "trivial view"
        )
        verdict = ": met" if met else ": not met"
    return Figure(
        "make bench-web",
        f"server time of every page at {' and '.join(f'{games:,}' for games in sizes)} games",
        text,
        "median at the largest size ≤ 1.5x at each smaller, for a page of the same size "
        f"at both (the same rows){verdict}; ≤ 3x the trivial view (what the request metrics "
        "cost: `--metrics-only`)",
    )


def report(runs: dict[int, dict[str, dict]], requests: int, rounds: int) -> list[str]:
    sizes = sorted(runs)
    header = "| page | queries |" + "".join(
        f" {games:,} games: no cache | {games:,}: cached |" for games in sizes
    )
    lines = [
        machine_description(),
        "",
        f"Command: `make bench-web` (`python -m bench.web`). Median / p95 server time in ms "
        f"over {requests} requests per page, through Django's test client in one process per "
        "size (middleware, view, queries, template; no network), in "
        f"{rounds} rounds that time each page at every size in turn, after one untimed "
        "request each. "
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
            f"Without the cache, {sizes[-1]:,} games against each smaller size: the median "
            "of the rounds' ratios with its 95% interval (target ≤ 1.5), and the median "
            "against the trivial view's at the largest size (target ≤ 3); the page's size at "
            "each. The smallest league fills fewer rows (its rankings hold the few ratings "
            "confirmed by 10 settled opponents, its matchup brackets few games): against it "
            "the ratio includes rendering the rows it lacks. The middle one fills the same "
            "rows as the largest, so against it the ratio is what the data's size costs.",
            "",
            "| page |"
            + "".join(f" from {small:,} | 95% interval |" for small in sizes[:-1])
            + " large / trivial | kB |",
            "|---|" + "---:|---:|" * (len(sizes) - 1) + "---:|---:|",
        ]
        ratios = {small: page_ratios(runs, small) for small in sizes[:-1]}
        for label, (*_, trivial_ratio) in ratios[sizes[0]].items():
            row = f"| {label} |"
            for small in sizes[:-1]:
                growth, low, high, _ = ratios[small][label]
                row += f" {growth:.2f} | {low:.2f} to {high:.2f} |"
            kilobytes = " → ".join(f"{runs[g][label]['bytes'] / 1e3:.1f}" for g in sizes)
            lines.append(f"{row} {trivial_ratio:.1f} | {kilobytes} |")
    return lines


def median_interval(values: list[float], confidence: float = CONFIDENCE) -> tuple[float, ...]:
    """The median of `values` and a distribution-free confidence interval for the median
    they are drawn from: the k-th smallest and k-th largest, with k the largest for which
    the chance that fewer than k values fall below the true median is ≤ (1 - confidence) / 2
    (binomial, p = 1/2). Too few values for that give the smallest and largest."""
    ordered = sorted(values)
    count = len(ordered)
    below, k = 0.0, 0
    while below + math.comb(count, k) / 2**count <= (1 - confidence) / 2:
        below += math.comb(count, k) / 2**count
        k += 1
    k = max(k, 1)
    return statistics.median(ordered), ordered[k - 1], ordered[count - k]


def metrics_summary(rounds: list[list[float]], requests: int) -> dict[str, object]:
    """One page in one cache mode, from its rounds' (wall, CPU) seconds with the request
    metrics and without: the ratios' medians and intervals, the CPU a request takes
    without them and what they add to it (medians over the rounds)."""
    return {
        "requests": requests,
        "wall": median_interval([wall / wall_without for wall, _, wall_without, _ in rounds]),
        "cpu": median_interval([cpu / cpu_without for _, cpu, _, cpu_without in rounds]),
        "cpu ms": statistics.median(cpu_without for *_, cpu_without in rounds) / requests * 1e3,
        "added µs": statistics.median(
            (cpu - cpu_without) / requests * 1e6 for _, cpu, _, cpu_without in rounds
        ),
    }


def _ratio_cell(ratio: tuple[float, ...]) -> str:
    return f"{ratio[0]:.3f} [{ratio[1]:.3f}, {ratio[2]:.3f}]"


def metrics_figure(
    summaries: dict[str, dict[str, dict]], games: int, multiprocess: bool, load: str
) -> Figure:
    """The worst page by the top of its CPU interval, and the wall clock's spread."""
    cells = [(label, mode) for label, modes in summaries.items() for mode in modes]
    worst = max(cells, key=lambda cell: summaries[cell[0]][cell[1]]["cpu"][2])
    worst_cpu = summaries[worst[0]][worst[1]]["cpu"]
    cpu_medians = [summaries[label][mode]["cpu"][0] for label, mode in cells]
    wall_medians = [summaries[label][mode]["wall"][0] for label, mode in cells]
    wall_tops = [summaries[label][mode]["wall"][2] for label, mode in cells]
    added = [summaries[label][mode]["added µs"] for label, mode in cells]
    met = all(summaries[label][mode]["cpu"][2] <= METRICS_TARGET for label, mode in cells)
    text = (
        f"CPU time with/without request metrics: medians {min(cpu_medians):.3f} to "
        f"{max(cpu_medians):.3f} over {len(cells)} pages cached and not, the highest top of a "
        f"95% interval {worst_cpu[2]:.3f} ({worst[0]}, "
        f"{'cached' if worst[1] == 'on' else 'uncached'}; median {worst_cpu[0]:.3f}); "
        f"added CPU a request {statistics.median(added):.1f} µs (median of the cells); "
        f"wall clock: medians {min(wall_medians):.3f} to {max(wall_medians):.3f}, interval "
        f"tops up to {max(wall_tops):.3f}; {load}"
    )
    return Figure(
        'make bench-web ARGS="--metrics-only --multiprocess"'
        if multiprocess
        else "make bench-web ARGS=--metrics-only",
        f"what /metrics costs every page at {games:,} games, "
        + ("PROMETHEUS_MULTIPROC_DIR set (production)" if multiprocess else "in-process"),
        text,
        "request metrics ≤ 5% of every page, by the top of each CPU interval (issue 34): "
        + ("met" if met else "not met"),
    )


def metrics_report(
    summaries: dict[str, dict[str, dict]], rounds: int, pairs: int, multiprocess: bool, load: str
) -> list[str]:
    lines = [
        machine_description(),
        load,
        "",
        "Command: `make bench-web ARGS=--metrics-only"
        + (" --multiprocess" if multiprocess else "")
        + f"` (`python -m bench.web --metrics-only`). {rounds} rounds; in each, every page "
        f"gets n requests (at least {pairs}, and enough for {ROUND_CPU_SECONDS * 1e3:.0f} ms of "
        "CPU by its warm-up's cost) through the site's middleware and as many without the "
        "request metrics (web.metrics.count_requests out, the cache lookups not noted), one "
        "of each in turn (with, without, without, with, ...; the other way round every "
        "other round), after one untimed request (the cost of coming from another page), "
        "in one process through Django's test client. "
        + (
            "PROMETHEUS_MULTIPROC_DIR set: every sample written to a memory-mapped file. "
            if multiprocess
            else "Each process's own metrics (no PROMETHEUS_MULTIPROC_DIR). "
        )
        + "Ratio: a round's requests with metrics over those without, in this process's CPU time "
        "(the database's left out of both, so the ratio is an upper bound) and in wall "
        "clock; median of the rounds [95% confidence interval of the median]. "
        "'CPU ms': a request's CPU without metrics; 'added': what they add, in µs.",
        "",
        "| page | no cache: n | CPU ms | CPU ratio | wall ratio | added µs "
        "| cached: n | CPU ms | CPU ratio | wall ratio | added µs |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, modes in summaries.items():
        row = f"| {label} |"
        for mode in ("off", "on"):
            entry = modes[mode]
            row += (
                f" {entry['requests']} | {entry['cpu ms']:.2f} | {_ratio_cell(entry['cpu'])} | "
                f"{_ratio_cell(entry['wall'])} | {entry['added µs']:.1f} |"
            )
        lines.append(row)
    return lines


def run_metrics_only(games: int, rounds: int, pairs: int, multiprocess: bool) -> None:
    url = ensure_database(games)
    load_at_start = os.getloadavg()[0]
    print(f"[{games:,} games] {rounds} rounds of {pairs} requests per page, each side", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-web-metrics-") as folder:
        env = _env(url) | ({"PROMETHEUS_MULTIPROC_DIR": folder} if multiprocess else {})
        child = subprocess.run(
            [
                *(sys.executable, "-m", "bench.web", "--measure-metrics"),
                *("--rounds", str(rounds), "--pairs", str(pairs)),
            ],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    samples = json.loads(child.stdout.strip().splitlines()[-1])
    summaries = {
        label: {
            mode: metrics_summary(entry[mode]["rounds"], entry[mode]["requests"])
            for mode in PAGE_CACHES
        }
        for label, entry in samples.items()
    }
    load = load_line(load_at_start)
    lines = metrics_report(summaries, rounds, pairs, multiprocess, load)
    print("\n".join(lines))
    append_section(
        f"What /metrics costs every page: {games:,} games"
        + (", multiprocess mode" if multiprocess else ""),
        lines,
        metrics_figure(summaries, games, multiprocess, load),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, nargs="+")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument(
        "--metrics-only",
        action="store_true",
        help="only what the request metrics cost every page (default --games 10000)",
    )
    parser.add_argument(
        "--multiprocess", action="store_true", help="with --metrics-only: in multiprocess mode"
    )
    parser.add_argument("--rounds", type=int, help="20, or with --metrics-only 60")
    parser.add_argument("--pairs", type=int, default=6, help="with --metrics-only")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--measure-metrics", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--rate", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.rounds is None:
        options.rounds = 60 if options.metrics_only or options.measure_metrics else 20
    if options.rate:
        rate()
        return
    if options.serve:
        serve()
        return
    if options.measure_metrics:
        print(json.dumps(measure_metrics(options.rounds, options.pairs)))
        return
    if options.metrics_only:
        for games in options.games or [10_000]:
            run_metrics_only(games, options.rounds, options.pairs, options.multiprocess)
        return
    urls = {
        games: ensure_database(games) for games in options.games or [10_000, 100_000, 1_000_000]
    }
    print(f"timing {options.requests} requests per page and size, in {options.rounds} rounds")
    runs = _measure_sizes(urls, options.requests, options.rounds)
    for games, run in runs.items():
        print(f"[{games:,} games]")
        for label, entry in run.items():
            print(f"  {label:28} {_cell(entry, 'off'):>16} ms  cached {_cell(entry, 'on'):>14} ms")
    lines = report(runs, options.requests, options.rounds)
    print("\n".join(lines))
    append_section(
        "Web pages: " + ", ".join(f"{games:,}" for games in sorted(runs)) + " games",
        lines,
        figure(runs),
    )


if __name__ == "__main__":
    main()
