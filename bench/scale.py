"""`make bench-scale`: a real game's history on this machine, against the targets of issue 16.

A league of --games games among --players players (10,000,000 among 1,000,000 by default)
is written as CSV by a vectorised generator (numpy draws, one string join a game), so that
making the data is never the bottleneck; the last --batch games go to a second file. On
a fresh PostgreSQL database, each step is its own `manage.py` process, timed from outside
with its peak memory and that of its children (bench.import_recompute.run_step):

1. `import_replays` of the history: first-import replays/s;
2. `import_replays` of the batch into the database that already holds the history;
3. `recompute_ratings`: games/s, beside the bare update loop measured in this run;
4. VACUUM ANALYZE (as autovacuum would), then `refresh` (each step's seconds printed;
   with --seasons the league is first cut into seasons and patches), while a second thread requests
   pages and API endpoints over HTTP from gunicorn on 127.0.0.1: worst latency, errors;
5. every page's uncached median (bench.web's measurement) and every API endpoint's cold
   median (bench.api's server and load) at this size and on a 10,000-game league;
6. the size of each table and its indexes, for docs/capacity.md.

Each target is printed as met or NOT met; the section is appended to
docs/benchmarks-history.md and its row of BENCHMARKS.md rewritten.

    python -m bench.scale [--games N] [--players N] [--batch N] [--database NAME] [--seasons N]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bench import postgres
from bench.api import SEED, load, private_cache, serve
from bench.import_recompute import Step, bare_update_loop, run_step
from bench.report import Figure, machine_description, publish
from bench.web import players_for, vacuum
from matches.simulation.league import DEFAULT_DAYS, POPULARITY_EXPONENT, random_name
from players.seed_roster import SEED_CODES

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
SMALL_GAMES = 10_000  # the size every page and endpoint is compared with
CHUNK = 500_000  # games drawn and written at a time
BARE_LOOP_GAMES = 2_000_000  # enough for a steady rate; more only costs memory
CSV_HEADER = (
    "id,played_at,floor,winner,p1_id,p1_name,p1_character,p1_platform,"
    "p2_id,p2_name,p2_character,p2_platform\n"
)
NEIGHBOUR_SHARE = 0.85  # of games between players close in skill, as the simulator
MAX_CHARACTERS = 4
PLATFORMS = ("pc", "ps", "xbox")

# The targets.
RECOMPUTE_SHARE_OF_BARE_LOOP = 1 / 9
RECOMPUTE_PEAK_MB = 4096
FIRST_IMPORT_PER_SECOND = 50_000
LATER_IMPORT_PER_SECOND = 20_000
REFRESH_SECONDS = 60
FLAT_RATIO = 1.5
COLD_PROFILE_MS = 15
PROFILE_PAGE = "profile (30 days)"  # bench.web's label of the profile page
# The periodic refresh; a new site's first lab evaluation, a daily task that replays the
# whole history, is left out.
REFRESH = ["refresh", "--no-lab"]


# --- The league -------------------------------------------------------------------------------


@dataclass
class _Roster:
    """Players as arrays; `sides[p * MAX_CHARACTERS + k]` is the CSV text of player p on
    their k-th character ("id,name,code,platform"), None past their last character."""

    skills: np.ndarray  # (players, MAX_CHARACTERS)
    characters: np.ndarray  # how many characters each plays
    activity: np.ndarray  # cumulative weights for drawing who plays
    by_skill: np.ndarray  # players, weakest first
    rank: np.ndarray  # each player's place in by_skill
    floors: np.ndarray
    sides: list[str | None]


def _roster(players: int, rng: np.random.Generator) -> _Roster:
    codes = list(SEED_CODES)
    popularity = (np.arange(len(codes)) + 1.0) ** -POPULARITY_EXPONENT
    popularity = rng.permutation(popularity / popularity.sum())
    strength = rng.normal(0, 40, len(codes))
    picks = rng.choice(len(codes), size=(players, MAX_CHARACTERS), p=popularity)
    # A secondary that repeats the main is moved along the roster, so a player's
    # characters differ from the main (two secondaries may coincide: one rating).
    for column in range(1, MAX_CHARACTERS):
        same = picks[:, column] == picks[:, 0]
        picks[same, column] = (picks[same, column] + column) % len(codes)
    counts = 1 + rng.choice(4, size=players, p=(0.35, 0.35, 0.2, 0.1))
    base = rng.normal(1500, 250, players)
    skills = base[:, None] + strength[picks]
    skills[:, 1:] -= np.abs(rng.normal(150, 100, (players, MAX_CHARACTERS - 1)))
    by_skill = np.argsort(skills[:, 0], kind="stable")
    rank = np.empty(players, dtype=np.int64)
    rank[by_skill] = np.arange(players)
    share = rank / players
    floors = np.where(share >= 0.97, 99, np.minimum(10, 1 + (share * 10).astype(np.int64)))
    ids = 10**17 + rng.choice(9 * 10**17, size=players, replace=False)
    platforms = rng.choice(len(PLATFORMS), size=players, p=(0.55, 0.35, 0.10))
    names = random.Random(int(rng.integers(2**63)))
    sides: list[str | None] = []
    for player in range(players):
        prefix = f"{ids[player]},{random_name(names)},"
        suffix = f",{PLATFORMS[platforms[player]]}"
        sides += [
            f"{prefix}{codes[picks[player, k]]}{suffix}" if k < counts[player] else None
            for k in range(MAX_CHARACTERS)
        ]
    return _Roster(
        skills=skills,
        characters=counts,
        activity=np.cumsum(rng.lognormal(0, 1, players)),
        by_skill=by_skill,
        rank=rank,
        floors=floors,
        sides=sides,
    )


def _draw_players(roster: _Roster, rng: np.random.Generator, count: int) -> np.ndarray:
    return np.searchsorted(roster.activity, rng.random(count) * roster.activity[-1], "right")


def _draw_character(roster: _Roster, rng: np.random.Generator, player: np.ndarray) -> np.ndarray:
    """The main three times in four, else one of the secondaries."""
    others = roster.characters[player] - 1
    secondary = 1 + (rng.random(len(player)) * np.maximum(others, 1)).astype(np.int64)
    return np.where((others > 0) & (rng.random(len(player)) >= 0.75), secondary, 0)


def _games(
    roster: _Roster, rng: np.random.Generator, first: int, count: int, times: np.ndarray
) -> str:
    """CSV lines of games first .. first + count - 1, played at `times` (epoch seconds)."""
    players = len(roster.rank)
    a = _draw_players(roster, rng, count)
    # Mostly a neighbour in skill (within a fiftieth of the league), else anyone active.
    reach = max(3, players // 50)
    step = rng.integers(1, reach + 1, count) * rng.choice((-1, 1), count)
    neighbour = roster.by_skill[np.clip(roster.rank[a] + step, 0, players - 1)]
    b = np.where(rng.random(count) < NEIGHBOUR_SHARE, neighbour, _draw_players(roster, rng, count))
    b = np.where(b == a, (a + 1) % players, b)
    a_side, b_side = _draw_character(roster, rng, a), _draw_character(roster, rng, b)
    edge = roster.skills[a, a_side] - roster.skills[b, b_side]
    winner = np.where(rng.random(count) < 1 / (1 + 10 ** (-edge / 400)), 1, 2)
    sides = roster.sides
    return "".join(
        f"s{index},{moment},{floor},{won},{sides[pa]},{sides[pb]}\n"
        for index, moment, floor, won, pa, pb in zip(
            range(first, first + count),
            times.tolist(),
            roster.floors[a].tolist(),
            winner.tolist(),
            (a * MAX_CHARACTERS + a_side).tolist(),
            (b * MAX_CHARACTERS + b_side).tolist(),
            strict=True,
        )
    )


def game_times(total: int, end: int, days: float) -> Callable[[int, int], np.ndarray]:
    """Epoch seconds of games start .. stop - 1 of `total`, evenly over `days` up to `end`:
    non-decreasing, and the last game at `end`."""
    span = int(days * 86400)

    def times(start: int, stop: int) -> np.ndarray:
        index = np.arange(start, stop, dtype=np.int64)
        return end - span + (index + 1) * span // max(total, 1)

    return times


def write_league(
    history: Path, batch: Path, games: int, batch_games: int, players: int, *, end: int
) -> None:
    """The first `games` games to `history` and the `batch_games` after them to `batch`,
    over DEFAULT_DAYS up to `end` (epoch seconds)."""
    rng = np.random.default_rng(SEED)
    roster = _roster(players, rng)
    total = games + batch_games
    times = game_times(total, end, DEFAULT_DAYS)
    for path, start, stop in ((history, 0, games), (batch, games, total)):
        partial = path.with_name(path.name + ".part")
        with partial.open("w", encoding="utf-8") as out:
            out.write(CSV_HEADER)
            for first in range(start, stop, CHUNK):
                count = min(CHUNK, stop - first)
                out.write(_games(roster, rng, first, count, times(first, first + count)))
        partial.rename(path)


# --- Steps ------------------------------------------------------------------------------------


def _rate(count: int, step: Step) -> float:
    return count / step.seconds


def _child(arguments: list[str], database_url: str) -> str:
    """The last line a `python -m bench...` child printed, run against one database."""
    child = subprocess.run(
        [sys.executable, "-m", *arguments],
        env={**os.environ, "DATABASE_URL": database_url},
        capture_output=True,
        text=True,
        check=True,
    )
    return child.stdout.strip().splitlines()[-1]


def probe_urls() -> dict[str, list[str]]:
    """In a child against one database: the API workload of bench.api, and as pages the
    profiles of the same ratings with the front page and the statistics page."""
    import django

    django.setup()
    from bench.api import workload

    urls = workload(random.Random(SEED))
    profiles = [
        url.replace("/api/v1/players/", "/player/").rstrip("/")
        for url in urls["players/{id}/{char}/"]
    ]
    return {"pages": ["/", "/stats", *profiles], **urls}


@dataclass
class Probe:
    """Requests made while something else runs: latencies in ms, and failures."""

    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def line(self) -> str:
        if not self.latencies:
            return f"no answer, {len(self.errors)} errors"
        return (
            f"{len(self.latencies) + len(self.errors)} requests, median "
            f"{statistics.median(self.latencies):.0f} ms, worst {max(self.latencies):.0f} ms, "
            f"{len(self.errors)} errors"
        )


def _probing(port: int, urls: dict[str, list[str]], stop: threading.Event) -> dict[str, Probe]:
    """Pages and API endpoints in turn, from one thread, until `stop` is set."""
    from bench.api import get

    probes = {"pages": Probe(), "API": Probe()}
    api = [url for key, group in urls.items() if key != "pages" for url in group]
    turns = [("pages", url) for url in urls["pages"]] + [("API", url) for url in api]
    random.Random(SEED).shuffle(turns)
    position = 0
    while not stop.is_set():
        kind, url = turns[position % len(turns)]
        position += 1
        try:
            status, seconds = get(port, url)
        except OSError as error:
            probes[kind].errors.append(f"{url}: {error}")
            continue
        if status == 200:
            probes[kind].latencies.append(seconds * 1000)
        else:
            probes[kind].errors.append(f"{url}: {status}")
    return probes


def refresh_under_load(
    database_url: str, urls: dict[str, list[str]]
) -> tuple[Step, dict[str, Probe]]:
    """`manage.py refresh`, while pages and the API are requested over HTTP."""
    with private_cache() as (cache, _), serve(database_url, cache) as port:
        stop = threading.Event()
        result: dict[str, dict[str, Probe]] = {}
        prober = threading.Thread(target=lambda: result.update(p=_probing(port, urls, stop)))
        prober.start()
        time.sleep(2)  # requests served before the refresh starts, for comparison
        try:
            refreshed = run_step(REFRESH, database_url)
        finally:
            stop.set()
            prober.join()
    return refreshed, result["p"]


def api_cold_medians(database_url: str, urls: dict[str, list[str]]) -> dict[str, float]:
    """Per endpoint, the median ms of each distinct URL requested once (nothing cached),
    one request at a time."""
    medians = {}
    with private_cache() as (cache, _), serve(database_url, cache) as port:
        load(port, ["/api/v1/characters/", "/api/v1/stats/"], 50, 1)  # warm the workers
        for endpoint, group in urls.items():
            if endpoint == "pages":
                continue
            cold = load(port, group, len(group), 1)
            if cold.errors:
                raise RuntimeError(f"{endpoint}: {cold.errors} errors")
            medians[endpoint] = 1000 * statistics.median(cold.latencies)
    return medians


def page_medians(database_url: str, requests: int) -> dict[str, float]:
    """bench.web's uncached median of every page, in ms."""
    runs = json.loads(_child(["bench.web", "--measure", "--requests", str(requests)], database_url))
    return {label: entry["off"]["median"] for label, entry in runs.items()}


def table_sizes(database: str) -> list[tuple[str, int, int, int]]:
    """(table, rows, table bytes, index bytes) of the site's tables, largest first; rows
    as counted by the last ANALYZE."""
    rows = postgres.psql(
        database,
        "SELECT c.relname, c.reltuples::bigint, pg_table_size(c.oid), pg_indexes_size(c.oid) "
        "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname NOT LIKE 'django%' "
        "AND c.relname NOT LIKE 'auth%' ORDER BY pg_total_relation_size(c.oid) DESC LIMIT 12",
    )
    sizes = []
    for row in rows.splitlines():
        name, count, table, indexes = row.split("|")
        sizes.append((name, max(int(count), 0), int(table), int(indexes)))
    return sizes


def _load_league(
    database: str, history: Path, batch: Path, games: int, batch_games: int
) -> dict[str, Step]:
    url = postgres.recreate(database)
    run_step(["migrate", "--no-input", "-v0"], url)
    steps = {}
    for label, path in (("first import", history), ("later import", batch)):
        print(f"[{database}] {label} ...", flush=True)
        steps[label] = run_step(["import_replays", str(path)], url)
        print(
            f"  {steps[label].output.splitlines()[-1]} in {steps[label].seconds:.1f} s", flush=True
        )
    print(f"[{database}] recompute ...", flush=True)
    steps["recompute"] = run_step(["recompute_ratings"], url)
    print(
        f"  {steps['recompute'].seconds:.1f} s, peak {steps['recompute'].peak_mb:,.0f} MB",
        flush=True,
    )
    vacuum(url)
    return steps


def league_files(games: int, players: int, batch_games: int) -> tuple[Path, Path]:
    """The league's two CSV files, ending now (so that ranks and the refresh's decay are
    as on a live site), written by a child process: this one stays small, and so do the
    commands it starts (a fork counts its parent's pages until it executes)."""
    OUT.mkdir(parents=True, exist_ok=True)
    stem = OUT / f"scale-{players}-{games}-{batch_games}"
    history, batch = Path(f"{stem}.csv"), Path(f"{stem}.batch.csv")
    print(f"writing {games:,} + {batch_games:,} games among {players:,} players ...", flush=True)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "bench.scale", "--write-league", str(history), str(batch),
         "--games", str(games), "--players", str(players), "--batch", str(batch_games)],
        check=True,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    print(f"  {seconds:.0f} s ({(games + batch_games) / seconds:,.0f} games/s)", flush=True)
    return history, batch


# --- The report -------------------------------------------------------------------------------


def add_seasons(database: str, seasons: int) -> None:
    """Cut the stored league into `seasons` seasons of equal days (all ended but the last,
    which runs past now) and as many patches going live at their starts, so that the
    refresh has ladders to draw and archive and patches to tabulate (issue 30)."""
    if not seasons:
        return
    postgres.psql(
        database,
        f"""WITH span AS (
            SELECT min(played_at)::date AS first, max(played_at)::date - min(played_at)::date
                AS days FROM matches_match
        ), cut AS (
            SELECT n, first + n * (days / {seasons}) AS start,
                CASE WHEN n = {seasons} - 1 THEN first + days + 30
                     ELSE first + (n + 1) * (days / {seasons}) - 1 END AS last
            FROM span, generate_series(0, {seasons} - 1) n
        ), new_seasons AS (
            INSERT INTO matches_season (name, start, "end")
            SELECT 'bench-' || n, start, last FROM cut ON CONFLICT DO NOTHING
        )
        INSERT INTO matches_patch (name, versions, live_at)
        SELECT 'bench-' || n, '{{}}', start::timestamp AT TIME ZONE 'UTC' FROM cut
        ON CONFLICT DO NOTHING""",
    )


def refresh_steps(database: str) -> str:
    """The last refresh's seconds per step, as it stored them (LAST_REFRESH_STEPS)."""
    stored = postgres.psql(
        database, "SELECT data FROM matches_sitestatistic WHERE key = 'last_refresh_steps'"
    )
    steps = json.loads(stored) if stored else {}
    return ", ".join(f"{step} {seconds:.1f} s" for step, seconds in steps.items())


def verdict(met: bool) -> str:
    return "met" if met else "**NOT met**"


def targets_met(targets: list[tuple[str, str, bool]]) -> str:
    """How many of the targets a run met, naming those it did not."""
    missed = [target for target, _, met in targets if not met]
    if not missed:
        return f"all {len(targets)} targets met"
    return f"{len(targets) - len(missed)} of {len(targets)} targets met (not: {'; '.join(missed)})"


def ratio_rows(
    large: dict[str, float], small: dict[str, float]
) -> Iterator[tuple[str, float, float, float]]:
    """(label, small ms, large ms, large / small) for every label measured at both sizes."""
    for label, large_ms in large.items():
        if label in small:
            yield label, small[label], large_ms, large_ms / small[label]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000_000)
    parser.add_argument("--players", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=200_000, help="games imported afterwards")
    parser.add_argument("--database", default="bench_scale", help="and <name>_small")
    parser.add_argument("--requests", type=int, default=50, help="per page, uncached")
    parser.add_argument(
        "--seasons",
        type=int,
        default=0,
        help="cut the league into this many seasons and patches before the refreshes",
    )
    parser.add_argument(
        "--print-only", action="store_true", help="record nothing (history, BENCHMARKS.md)"
    )
    parser.add_argument(
        "--stock-server",
        action="store_true",
        help="run on the server at BENCH_POSTGRES_SERVER as it is configured, instead of a "
        "private one set up as docs/capacity.md says (bench.postgres.PRODUCTION_SETTINGS)",
    )
    parser.add_argument("--probe-urls", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--write-league", nargs=2, type=Path, help=argparse.SUPPRESS)
    parser.add_argument(
        "--recompute-only",
        action="store_true",
        help="only recompute and refresh the league already in --database (after a change "
        "to the rating pipeline), beside the bare loop",
    )
    options = parser.parse_args()
    # For the children and gunicorn, which read the settings from the environment; pages
    # served with DEBUG off need the static files' manifest.
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratingsite.settings")
    os.environ.setdefault("STATIC_ROOT", str(OUT / "static"))
    if options.probe_urls:
        print(json.dumps(probe_urls()))
        return
    if options.write_league:
        history, batch = options.write_league
        write_league(
            history, batch, options.games, options.batch, options.players, end=int(time.time())
        )
        return

    if options.recompute_only:
        recompute_and_refresh(options)
        return
    if options.stock_server:
        measure(options, f"the server at {postgres.SERVER} as it is configured")
        return
    with postgres.private_server(postgres.PRODUCTION_SETTINGS) as server:
        measure(options, server)


def measure(options: argparse.Namespace, server: str) -> None:
    """Both leagues loaded and every figure taken, on the server `server` describes."""
    small_batch = SMALL_GAMES // 10
    small_files = league_files(SMALL_GAMES - small_batch, players_for(SMALL_GAMES), small_batch)
    small_url = postgres.url(f"{options.database}_small")
    _load_league(f"{options.database}_small", *small_files, SMALL_GAMES - small_batch, small_batch)
    run_step(REFRESH, small_url)

    history, batch = league_files(options.games, options.players, options.batch)
    steps = _load_league(options.database, history, batch, options.games, options.batch)
    url = postgres.url(options.database)
    add_seasons(options.database, options.seasons)
    run_step(["collectstatic", "--no-input", "-v0"], url)
    print(f"[{options.database}] first refresh ...", flush=True)
    steps["first refresh"] = run_step(REFRESH, url)
    first = steps["first refresh"].seconds
    print(f"  {first:.1f} s ({refresh_steps(options.database)})", flush=True)
    # Drawn once the refresh has decayed the ratings, so that every rankings page exists.
    urls = json.loads(_child(["bench.scale", "--probe-urls"], url))
    print(f"[{options.database}] refresh while pages and the API are requested ...", flush=True)
    refreshed, probes = refresh_under_load(url, urls)
    print(
        f"  {refreshed.seconds:.1f} s ({refresh_steps(options.database)}); "
        + "; ".join(f"{k}: {p.line()}" for k, p in probes.items()),
        flush=True,
    )

    print("timing pages and API endpoints at both sizes ...", flush=True)
    pages = {
        size: page_medians(u, options.requests)
        for size, u in (("small", small_url), ("large", url))
    }
    small_urls = json.loads(_child(["bench.scale", "--probe-urls"], small_url))
    api = {"small": api_cold_medians(small_url, small_urls), "large": api_cold_medians(url, urls)}
    sizes = table_sizes(options.database)
    # Last: the loop's millions of tuples would stay in this process's resident set.
    print(f"bare update loop on {BARE_LOOP_GAMES:,} games ...", flush=True)
    loop = bare_update_loop(BARE_LOOP_GAMES)
    print(f"  {loop:,.0f} games/s", flush=True)

    total = options.games + options.batch
    recompute = _rate(total, steps["recompute"])
    first_import = _rate(options.games, steps["first import"])
    later_import = _rate(options.batch, steps["later import"])
    probe_errors = sum(len(p.errors) for p in probes.values())
    page_rows = [r for r in ratio_rows(pages["large"], pages["small"]) if r[0] != "trivial view"]
    api_rows = list(ratio_rows(api["large"], api["small"]))
    worst = max(r[3] for r in page_rows + api_rows)
    profile = pages["large"][PROFILE_PAGE]
    slowest_refresh = max(refreshed.seconds, steps["first refresh"].seconds)
    targets = [
        (
            f"recompute ≥ bare loop / 9 ({loop * RECOMPUTE_SHARE_OF_BARE_LOOP:,.0f} games/s)",
            f"{recompute:,.0f} games/s (1/{loop / recompute:.1f})",
            recompute >= loop * RECOMPUTE_SHARE_OF_BARE_LOOP,
        ),
        (
            f"recompute peak ≤ {RECOMPUTE_PEAK_MB:,} MB",
            f"{steps['recompute'].peak_mb:,.0f} MB",
            steps["recompute"].peak_mb <= RECOMPUTE_PEAK_MB,
        ),
        (
            f"first import ≥ {FIRST_IMPORT_PER_SECOND:,} replays/s",
            f"{first_import:,.0f}",
            first_import >= FIRST_IMPORT_PER_SECOND,
        ),
        (
            f"import into {options.games:,} games ≥ {LATER_IMPORT_PER_SECOND:,} replays/s",
            f"{later_import:,.0f}",
            later_import >= LATER_IMPORT_PER_SECOND,
        ),
        (
            f"refresh ≤ {REFRESH_SECONDS} s (the slower of two)",
            f"{slowest_refresh:.1f} s",
            slowest_refresh <= REFRESH_SECONDS,
        ),
        ("pages and API served during the refresh", f"{probe_errors} errors", probe_errors == 0),
        (
            f"every page and endpoint ≤ {FLAT_RATIO}x its 10,000-game median",
            f"worst {worst:.2f}x",
            worst <= FLAT_RATIO,
        ),
        (
            f"cold profile median < {COLD_PROFILE_MS} ms",
            f"{profile:.1f} ms",
            profile < COLD_PROFILE_MS,
        ),
    ]
    lines = report(options, loop, steps, refreshed, probes, page_rows, api_rows, sizes, targets)
    lines[1:1] = ["", f"Database server: {server}."]
    for target, figure, met in targets:
        print(f"  {target}: {figure} — {'met' if met else 'NOT met'}")
    figure = Figure(
        "make bench-scale",
        f"{total:,} games among {options.players:,} players",
        f"{targets_met(targets)}: first import {first_import:,.0f} replays/s, later import "
        f"{later_import:,.0f} replays/s, recompute {recompute:,.0f} games/s (peak "
        f"{steps['recompute'].peak_mb:,.0f} MB), refresh {slowest_refresh:.1f} s, worst page "
        f"or endpoint {worst:.2f}x its {SMALL_GAMES:,}-game median, cold profile {profile:.1f} ms",
        "issue 16 (the table in the run)",
    )
    publish(
        f"Scale: {total:,} games, {options.players:,} players (`make bench-scale`)",
        lines,
        figure,
        print_only=options.print_only,
    )


def recompute_and_refresh(options: argparse.Namespace) -> None:
    """Recompute and refresh the league already stored in the database: the rating
    pipeline's targets measured again without loading ten million games anew."""
    url = postgres.url(options.database)
    total = int(postgres.psql(options.database, "SELECT count(*) FROM matches_match"))
    print(f"[{options.database}] recompute of {total:,} games ...", flush=True)
    recompute = run_step(["recompute_ratings"], url)
    print(f"  {recompute.seconds:.1f} s, peak {recompute.peak_mb:,.0f} MB", flush=True)
    vacuum(url)
    add_seasons(options.database, options.seasons)
    refreshes, step_lines = [], []
    for n in (1, 2):
        refreshes.append(run_step(REFRESH, url))
        step_lines.append(f"refresh {n}: {refresh_steps(options.database)}")
        print(f"  refresh {n}: {refreshes[-1].seconds:.1f} s ({step_lines[-1]})", flush=True)
    loop = bare_update_loop(BARE_LOOP_GAMES)
    rate = total / recompute.seconds
    slowest = max(r.seconds for r in refreshes)
    targets = [
        (
            f"recompute ≥ bare loop / 9 ({loop * RECOMPUTE_SHARE_OF_BARE_LOOP:,.0f} games/s)",
            f"{rate:,.0f} games/s (1/{loop / rate:.1f})",
            rate >= loop * RECOMPUTE_SHARE_OF_BARE_LOOP,
        ),
        (
            f"recompute peak ≤ {RECOMPUTE_PEAK_MB:,} MB",
            f"{recompute.peak_mb:,.0f} MB",
            recompute.peak_mb <= RECOMPUTE_PEAK_MB,
        ),
        (
            f"refresh ≤ {REFRESH_SECONDS} s (the slower of two)",
            f"{slowest:.1f} s",
            slowest <= REFRESH_SECONDS,
        ),
    ]
    lines = [
        machine_description(),
        "",
        f"Command: `python -m bench.scale --recompute-only --database {options.database}`: "
        f"`recompute_ratings` on the {total:,} games already stored, then `refresh --no-lab` "
        "twice, each its own `manage.py` process timed from outside (peak memory: the "
        "command and its children); the bare update loop (docs/rating-model.md#the-update) on "
        f"{BARE_LOOP_GAMES:,} games in the same run: {loop:,.0f} games/s. Load average at "
        f"the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}.",
        "",
        "| step | seconds | rate | peak MB |",
        "|---|---:|---:|---:|",
        f"| recompute | {recompute.seconds:,.1f} | {rate:,.0f} games/s "
        f"| {recompute.peak_mb:,.0f} |",
        *(
            f"| refresh {n} | {r.seconds:,.1f} | | {r.peak_mb:,.0f} |"
            for n, r in enumerate(refreshes, 1)
        ),
        "",
        "Seconds per step of the derived tables (`last_refresh_steps`): "
        + "; ".join(step_lines)
        + ".",
        "",
        "| target (issue 16) | measured | |",
        "|---|---:|---|",
        *(f"| {target} | {figure} | {verdict(met)} |" for target, figure, met in targets),
    ]
    figure = Figure(
        "python -m bench.scale --recompute-only",
        "recompute and refresh of a stored league",
        f"{total:,} games, {targets_met(targets)}: recompute {rate:,.0f} games/s (peak "
        f"{recompute.peak_mb:,.0f} MB), refresh {slowest:.1f} s",
        "issue 16 (the table in the run)",
    )
    publish(
        f"Scale: recompute and refresh of {total:,} stored games (`bench.scale --recompute-only`)",
        lines,
        figure,
        print_only=options.print_only,
    )


def report(
    options: argparse.Namespace,
    loop: float,
    steps: dict[str, Step],
    refreshed: Step,
    probes: dict[str, Probe],
    page_rows: list[tuple[str, float, float, float]],
    api_rows: list[tuple[str, float, float, float]],
    sizes: list[tuple[str, int, int, int]],
    targets: list[tuple[str, str, bool]],
) -> list[str]:
    total = options.games + options.batch
    lines = [
        machine_description(),
        "",
        f"Command: `make bench-scale` (`python -m bench.scale --games {options.games} "
        f"--players {options.players} --batch {options.batch}`). A league of {total:,} games "
        f"over {DEFAULT_DAYS:.0f} days up to the run, written as CSV by bench/scale.py's "
        f"vectorised generator; the first {options.games:,} are imported, then the last "
        f"{options.batch:,} into the database holding them. Each step is its own `manage.py` "
        "process on a fresh PostgreSQL database, timed from outside (start-up included); peak "
        "memory is the command's resident set plus its children's, summed. The database is "
        "vacuumed and analyzed after the recompute, as autovacuum would. During `refresh`, one "
        "thread requests pages and API endpoints (profiles of 500 random ratings, the front "
        "and statistics pages, and bench.api's URLs) from gunicorn (4 workers x 4 threads, "
        "private Redis) on 127.0.0.1, one at a time. Page medians: bench.web's uncached "
        f"measurement ({options.requests} requests a page, Django's test client); API medians: "
        "each of bench.api's distinct URLs once, nothing cached, one request at a time. Small "
        f"league: {SMALL_GAMES:,} games among {players_for(SMALL_GAMES):,} players, loaded the "
        "same way.",
        "",
        f"Bare update loop (docs/rating-model.md#the-update) in the same run: {loop:,.0f} games/s "
        f"({BARE_LOOP_GAMES:,} games). Load average when the run ended: "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} (other work on the cores slows "
        "every step; the bare loop shows by how much).",
        "",
        "| step | seconds | rate | peak MB |",
        "|---|---:|---:|---:|",
    ]
    rates = {
        "first import": f"{_rate(options.games, steps['first import']):,.0f} replays/s",
        "later import": f"{_rate(options.batch, steps['later import']):,.0f} replays/s",
        "recompute": f"{_rate(total, steps['recompute']):,.0f} games/s",
    }
    lines += [
        f"| {label} | {step.seconds:,.1f} | {rates.get(label, '')} | {step.peak_mb:,.0f} |"
        for label, step in {**steps, "refresh under load": refreshed}.items()
    ]
    lines += [
        "",
        "Served during the refresh: "
        + "; ".join(f"{kind}: {probe.line()}" for kind, probe in probes.items())
        + ".",
        "",
        f"| page or endpoint | {SMALL_GAMES:,} games ms | {total:,} games ms | ratio |",
        "|---|---:|---:|---:|",
        *(
            f"| {label} | {small:.2f} | {large:.2f} | {ratio:.2f} |"
            for label, small, large, ratio in page_rows
            + [(f"API `{label}` (cold)", *rest) for label, *rest in api_rows]
        ),
        "",
        "| table | rows | table MB | indexes MB | bytes a row, with indexes |",
        "|---|---:|---:|---:|---:|",
        *(
            f"| {name} | {rows:,} | {table / 2**20:,.1f} | {indexes / 2**20:,.1f} "
            f"| {(table + indexes) / rows:,.0f} |"
            if rows >= 1000  # a few rows in a page of their own say nothing per row
            else f"| {name} | {rows:,} | {table / 2**20:,.1f} | {indexes / 2**20:,.1f} | |"
            for name, rows, table, indexes in sizes
        ),
        "",
        "| target (issue 16) | measured | |",
        "|---|---:|---|",
        *(f"| {target} | {figure} | {verdict(met)} |" for target, figure, met in targets),
    ]
    return lines


if __name__ == "__main__":
    main()
