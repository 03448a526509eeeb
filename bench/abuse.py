"""`make bench-abuse`: issue 35's audit re-measured on a league of its size.

A league of --games games among --players players (1,500,000 among 1,080,000 by default,
the audit's size) is written by bench.scale's generator, imported, recomputed and refreshed
into `<database>_base` once, and reused while it holds that many games. Each run clones it
(`CREATE DATABASE ... TEMPLATE`), migrates the clone and recomputes and refreshes it with
the code checked out, so a change to the rating rules is measured without a new import.
The site is then served by gunicorn on 127.0.0.1 (bench.api.serve: 4 workers x 4 threads,
DEBUG=0) with a private Redis bounded as production must be (bench.api.private_cache):

(c) the cached /about's median, quiet and while 4 connections request
    /calculator?a-name=XX&b-name=YY with unmatched short names, every value new;
    with the page render throttle as configured, and lifted;
(d) the keys and bytes that 2,000 requests with new values of known parameters
    (`?per=pN`, `?page=0…01`, `?active=3N`, padded `?name=`) add to Redis;
(a) the rank of an account that beats 10 fresh spares 100 times each, and of one that
    beats 50 spares 20 times each: the games go through `import_replays --rate` (import,
    rating, refresh) and the rank is the site's (players.selectors.rankings.rating_ranks);
(b) the chance the site shows for a 200-point gap, and the calculator's calibrated second
    number, before and after 70, 400 and 2,000 upsets between two settled accounts about
    963 points apart, imported the same way (each refresh refits the calibration).

The run is appended to docs/benchmarks-history.md and its row of BENCHMARKS.md rewritten;
--json writes the figures for tests.

    python -m bench.abuse [--games N] [--players N] [--database NAME] [--json PATH]
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import random
import re
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bench import postgres
from bench.api import get, private_cache, serve
from bench.import_recompute import run_step
from bench.report import Figure, machine_description, publish
from bench.scale import CSV_HEADER, OUT, REFRESH, _load_league, league_files
from matches.simulation.league import random_name
from players.seed_roster import SEED_CODES

# The audit's attacks.
WIN_TRADING = ((10, 100), (50, 20))  # (spare accounts, games against each)
UPSETS = (70, 400, 2000)  # crafted upsets, cumulative
GAP = 963  # rating points between the two established accounts
SHOWN_GAP = (1700.0, 50.0, 1500.0, 50.0)  # a 200-point gap between settled ratings
CONNECTIONS = 4
# Targets of issue 35.
CACHED_UNDER_LOAD = 2.0  # cached page median under the search load over its quiet median
FILL_KEYS = 5  # "no more than a handful"
CHANCE_SHIFT = 0.01
# New accounts' ids: 18 digits as the league's, below the generator's range (10**17 up).
ATTACK_ID = 10**17 - 10**6
RARE_LETTERS = "qjxzvk"
CALIBRATED = re.compile(r"came true about ([0-9.]+)%")
THROTTLE_LIFTED = "100000000/min"


# --- In a child process (Django set up against one database) ----------------------------------


def _setup() -> None:
    import django

    django.setup()


def pair_child() -> dict[str, Any]:
    """Two settled ratings about GAP points apart: the strongest settled rating whose
    player has one at least GAP below, and the one nearest GAP below it on either side (on
    a league too small for the gap, the strongest and the weakest settled ratings: the
    report gives the gap)."""
    from players import rules
    from players.models import Rating

    settled = Rating.objects.filter(rules.settled(), player__hidden=False).select_related(
        "player", "character"
    )
    for strong in settled.order_by("-value")[:50]:
        others = settled.exclude(player_id=strong.player_id)
        target = strong.value - GAP
        below = others.filter(value__lte=target).order_by("-value").first()
        if below is not None:
            above = others.filter(value__gt=target).order_by("value").first()
            nearest = [r for r in (below, above) if r is not None]
            pair = strong, min(nearest, key=lambda rating: abs(rating.value - target))
            break
    else:
        pair = settled.order_by("-value").first(), settled.order_by("value").first()
    if pair[0] is None or pair[0].player_id == pair[1].player_id:
        raise RuntimeError("fewer than two players with a settled rating")
    return {
        side: {
            "player": rating.player_id,
            "name": rating.player.name,
            "character": rating.character.code,
            "value": rating.value,
            "deviation": rating.deviation,
        }
        for side, rating in zip(("strong", "weak"), pair, strict=True)
    }


def chances_child() -> dict[str, Any]:
    """The chance the site shows for SHOWN_GAP, the calculator's calibrated number for
    it, and the stored fit."""
    from matches.selectors.calibration import current_calibration
    from matches.selectors.chances import chance_model

    shown = chance_model().game(*SHOWN_GAP).chance
    calibration = current_calibration()
    return {
        "shown": shown,
        "calibrated": calibration.shown(shown),
        "temperature": calibration.temperature,
        "fit_games": calibration.games,
    }


def rank_child(player_ids: list[str]) -> dict[str, Any]:
    """Each account's best rating as the site ranks it, and the best honest rating
    (the best ranked rating of a player not in `player_ids`)."""
    from players.models import Rating
    from players.selectors.rankings import ranked_ratings, rating_ranks, unranked_reason

    accounts = {}
    for player_id in player_ids:
        rating = (
            Rating.objects.filter(player_id=player_id)
            .select_related("player", "character")
            .order_by("-value")
            .first()
        )
        ranks = rating_ranks(rating)
        accounts[player_id] = {
            "value": rating.value,
            "deviation": rating.deviation,
            "games": rating.wins + rating.losses,
            "rank": ranks.overall if ranks else None,
            "unranked_reason": unranked_reason(rating),
        }
    best = ranked_ratings().exclude(player_id__in=player_ids).first()
    return {"accounts": accounts, "best_honest": best.value if best else None}


CHILDREN = {"pair": pair_child, "chances": chances_child, "rank": rank_child}


# --- The league -------------------------------------------------------------------------------


def _child(action: str, database_url: str, *arguments: str) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "bench.abuse", "--child", action, *arguments],
        env={**os.environ, "DATABASE_URL": database_url},
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise RuntimeError(f"child {action} failed:\n{done.stdout}{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def base_league(database: str, games: int, players: int, rebuild: bool) -> str:
    """`<database>_base` holding the rated league, built unless it already does."""
    base = f"{database}_base"
    if not rebuild and postgres.holds_rated_league(base, games):
        print(f"[{base}] reusing the league of {games:,} games", flush=True)
        return base
    history, batch = league_files(games, players, 0)
    _load_league(base, history, batch, games, 0)
    run_step(REFRESH, postgres.url(base))
    return base


def clone(base: str, database: str) -> str:
    """A fresh copy of the base league, migrated, recomputed and refreshed by this code."""
    started = time.perf_counter()
    postgres.psql("postgres", f"DROP DATABASE IF EXISTS {database}")
    created = subprocess.run(
        ["psql", postgres.url("postgres"), "-q", "-c",
         f"CREATE DATABASE {database} TEMPLATE {base}"],
        check=False, capture_output=True, text=True,
    )  # fmt: skip
    if created.returncode:
        raise RuntimeError(f"cloning {base}: {created.stderr}")
    url = postgres.url(database)
    # The site's whole refresh: on a new site it evaluates the lab once (a replay of the
    # history), which the first crafted import's refresh would do otherwise.
    for arguments in (["migrate", "--no-input", "-v0"], ["recompute_ratings"], ["refresh"]):
        run_step(arguments, url)
    run_step(["collectstatic", "--no-input", "-v0"], url)
    print(f"[{database}] cloned, recomputed and refreshed in "
          f"{time.perf_counter() - started:.0f} s", flush=True)  # fmt: skip
    return url


# --- Crafted games ----------------------------------------------------------------------------


SPACING = timedelta(milliseconds=1)
_last_moment = datetime.fromtimestamp(0, UTC)


@dataclass
class Crafted:
    """Games written as bench.scale's CSV, a millisecond apart, ending now and after every
    crafted game before (the same two players cannot play twice at one moment)."""

    rows: list[tuple[str, str, str, str, str, str]] = field(default_factory=list)

    def game(self, winner: tuple[str, str, str], loser: tuple[str, str, str]) -> None:
        """`winner` and `loser`: (player id, name, character code)."""
        self.rows.append((*winner, *loser))  # type: ignore[arg-type]

    def import_rated(self, path: Path, database_url: str, label: str) -> float:
        """Import through `import_replays --rate` (import, rate, refresh); its seconds.
        Every game must be stored."""
        global _last_moment
        now = datetime.now(UTC)
        first = max(now - len(self.rows) * SPACING, _last_moment + SPACING)
        with path.open("w", encoding="utf-8") as out:
            out.write(CSV_HEADER)
            for n, (wid, wname, wcode, lid, lname, lcode) in enumerate(self.rows):
                _last_moment = first + n * SPACING
                out.write(
                    f"{label}-{now.timestamp():.0f}-{n},{_last_moment.isoformat()},10,1,"
                    f"{wid},{wname},{wcode},pc,{lid},{lname},{lcode},pc\n"
                )
        step = run_step(["import_replays", str(path), "--rate"], database_url)
        stored = f"new {len(self.rows)}, duplicate 0, rejected 0"
        if stored not in step.output:
            raise RuntimeError(f"{label}: not every game was stored:\n{step.output}")
        print(f"  {label}: {len(self.rows):,} games, {step.seconds:.1f} s", flush=True)
        return step.seconds


def win_trading(database_url: str, names: random.Random) -> list[dict[str, Any]]:
    """Each WIN_TRADING attack by a new account, in turn; each rank read after its import."""
    results = []
    next_id = ATTACK_ID
    for spares, games in WIN_TRADING:
        attacker = (str(next_id), f"abuse{random_name(names)}", SEED_CODES[0])
        next_id += 1
        accounts = [(str(next_id + k), random_name(names), SEED_CODES[k % len(SEED_CODES)])
                    for k in range(spares)]  # fmt: skip
        next_id += spares
        crafted = Crafted()
        for _ in range(games):  # round after round: every spare stays as unsettled
            for spare in accounts:
                crafted.game(attacker, spare)
        seconds = crafted.import_rated(
            OUT / f"abuse-trading-{spares}.csv", database_url, f"trade{spares}x{games}"
        )
        ranks = _child("rank", database_url, attacker[0])
        account = ranks["accounts"][attacker[0]]
        results.append({
            "spares": spares, "games_each": games, "games": spares * games,
            "seconds": seconds, **account, "best_honest": ranks["best_honest"],
        })  # fmt: skip
        print(f"  {spares} spares x {games}: {account}", flush=True)
    return results


def crafted_upsets(database_url: str) -> dict[str, Any]:
    """The shown chances before and after each UPSETS step (cumulative)."""
    pair = _child("pair", database_url)
    strong, weak = ((pair[side]["player"], pair[side]["name"], pair[side]["character"])
                    for side in ("strong", "weak"))  # fmt: skip
    steps = [{"upsets": 0, **_child("chances", database_url)}]
    done = 0
    for total in UPSETS:
        crafted = Crafted()
        for _ in range(total - done):
            crafted.game(weak, strong)
        crafted.import_rated(OUT / f"abuse-upsets-{total}.csv", database_url, f"upsets{total}")
        done = total
        steps.append({"upsets": total, **_child("chances", database_url)})
        print(f"  {steps[-1]}", flush=True)
    return {"pair": pair, "steps": steps}


# --- Load on the served site ------------------------------------------------------------------


def _latencies(port: int, url: str, requests: int) -> list[float]:
    """Milliseconds of `requests` GETs in turn, each of which must be a 200."""
    latencies = []
    for _ in range(requests):
        status, seconds = get(port, url)
        if status != 200:
            raise RuntimeError(f"{url} answered {status}")
        latencies.append(1000 * seconds)
    return latencies


def short_names() -> Iterator[tuple[str, str]]:
    """Two-letter names of rare letters, then the same with a trailing space more:
    every value is new text."""
    pairs = ["".join(p) for p in itertools.product(RARE_LETTERS, repeat=2)]
    combos = [(a, b) for a in pairs for b in pairs if a != b]
    return ((a + " " * n, b) for n in itertools.count() for a, b in combos)


def search_load(port: int, seconds: float, quiet_requests: int) -> dict[str, Any]:
    """/about's median quiet and while CONNECTIONS threads request the calculator with
    new short names; the calculator's answers by status, and its median."""
    page = "/about"
    get(port, page)  # cached from here on
    # Half the quiet requests before the load and half after: on a shared machine one
    # side alone can catch a busy spell.
    before = _latencies(port, page, quiet_requests // 2)
    names = short_names()
    lock, stop = threading.Lock(), threading.Event()
    hammer: list[float] = []
    statuses: Counter = Counter()

    def attack() -> None:
        while not stop.is_set():
            with lock:
                a, b = next(names)
            url = f"/calculator?a-name={quote(a)}&b-name={quote(b)}"
            try:
                status, took = get(port, url)
            except OSError:
                status, took = 0, 0.0
            with lock:
                statuses[status] += 1
                hammer.append(1000 * took)

    threads = [threading.Thread(target=attack) for _ in range(CONNECTIONS)]
    for thread in threads:
        thread.start()
    time.sleep(min(2.0, seconds / 4))  # the load under way
    loaded: list[float] = []
    about: Counter = Counter()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status, took = get(port, page)
        about[status] += 1
        loaded.append(1000 * took)
    stop.set()
    for thread in threads:
        thread.join()
    after = _latencies(port, page, quiet_requests - quiet_requests // 2)
    quiet, under_load = statistics.median(before + after), statistics.median(loaded)
    return {
        "quiet_ms": quiet,
        "quiet_before_ms": statistics.median(before),
        "quiet_after_ms": statistics.median(after),
        "loaded_ms": under_load,
        "ratio": under_load / quiet,
        "about_requests": len(loaded),
        "about_statuses": dict(about),
        "calculator_requests": len(hammer),
        "calculator_statuses": dict(statuses),
        "calculator_median_ms": statistics.median(hammer) if hammer else None,
    }


def fill_urls(requests: int) -> list[str]:
    """The audit's fill: new values of parameters the pages read, a quarter each."""
    each = requests // 4
    return [
        *(f"/?per=p{n}" for n in range(each)),
        *(f"/?page={'0' * (n + 1)}1" for n in range(each)),
        *(f"/?active=3{n}" for n in range(each)),
        *(f"/search?name=qj{'%20' * (n + 1)}" for n in range(requests - 3 * each)),
    ]


def _redis(cache_url: str, *command: str) -> str:
    port = cache_url.rsplit(":", 1)[1].split("/")[0]
    return subprocess.run(
        ["redis-cli", "-p", port, *command], capture_output=True, text=True, check=True
    ).stdout


def _redis_usage(cache_url: str) -> tuple[int, int]:
    keys = int(_redis(cache_url, "DBSIZE").strip() or 0)
    memory = re.search(r"used_memory:(\d+)", _redis(cache_url, "INFO", "memory"))
    return keys, int(memory.group(1)) if memory else 0


def cache_fill(port: int, cache_url: str, requests: int) -> dict[str, Any]:
    """Redis keys and bytes the fill adds, once the canonical pages are cached."""
    for url in ("/", "/?page=1", "/?active=30", "/search?name=qj"):
        get(port, url)
    keys, memory = _redis_usage(cache_url)
    statuses: Counter = Counter()
    for url in fill_urls(requests):
        statuses[get(port, url)[0]] += 1
    keys_after, memory_after = _redis_usage(cache_url)
    return {
        "requests": requests,
        "keys_added": keys_after - keys,
        "bytes_added": memory_after - memory,
        "statuses": dict(statuses),
    }


def served(database_url: str, throttle: str | None, job: Callable[[int, str], Any]) -> Any:
    """`job(port, cache_url)` against gunicorn and a fresh private Redis; `throttle` sets
    PAGE_RENDER_RATE (None: as configured)."""
    saved = os.environ.get("PAGE_RENDER_RATE")
    if throttle is not None:
        os.environ["PAGE_RENDER_RATE"] = throttle
    try:
        with private_cache() as (cache_url, _), serve(database_url, cache_url) as port:
            for _ in range(20):  # both workers up, connected and with their imports done
                get(port, "/bench/trivial/")
            return job(port, cache_url)
    finally:
        if saved is None:
            os.environ.pop("PAGE_RENDER_RATE", None)
        else:
            os.environ["PAGE_RENDER_RATE"] = saved


def calibrated_on_page(database_url: str) -> float | None:
    """The calculator page's calibrated number for SHOWN_GAP, as served."""
    a, da, b, db = SHOWN_GAP
    url = (
        f"/calculator?a-rating={a:.0f}&a-uncertainty={2 * da:.0f}"  # the ±: two deviations
        f"&b-rating={b:.0f}&b-uncertainty={2 * db:.0f}"
    )

    def read(port: int, _: str) -> float | None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("GET", url)
        text = connection.getresponse().read().decode()
        found = CALIBRATED.search(text)
        return float(found.group(1)) / 100 if found else None

    return served(database_url, THROTTLE_LIFTED, read)


# --- The run ----------------------------------------------------------------------------------


def measure(options: argparse.Namespace) -> dict[str, Any]:
    """Every figure of the audit, on a fresh clone of the base league."""
    base = base_league(options.database, options.games, options.players, options.rebuild)
    url = clone(base, options.database)
    figures: dict[str, Any] = {"games": options.games, "players": options.players}
    load_at_start = os.getloadavg()
    print("(c) cached /about under the search load ...", flush=True)
    figures["search_load"] = {
        label: served(
            url,
            throttle,
            lambda port, _: search_load(port, options.load_seconds, options.quiet_requests),
        )
        for label, throttle in (("as configured", None), ("throttle lifted", THROTTLE_LIFTED))
    }
    print(f"  {figures['search_load']}", flush=True)
    print("(d) the cache fill ...", flush=True)
    figures["cache_fill"] = {
        label: served(url, throttle, lambda port, cache: cache_fill(port, cache, options.fill))
        for label, throttle in (("as configured", None), ("throttle lifted", THROTTLE_LIFTED))
    }
    print(f"  {figures['cache_fill']}", flush=True)
    # The upsets first: their pair is drawn from honest settled ratings, and they move
    # no rating (they do not count), so the win-trading after them meets the same league.
    print("(b) crafted upsets ...", flush=True)
    figures["upsets"] = crafted_upsets(url)
    figures["upsets"]["served_calibrated"] = calibrated_on_page(url)
    print("(a) win-trading ...", flush=True)
    figures["win_trading"] = win_trading(url, random.Random(35))
    figures["load_average"] = {"start": load_at_start, "end": os.getloadavg()}
    return figures


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def _best_honest(value: float | None) -> str:
    """None: no honest rating is ranked (none has the confirmed opponents it needs)."""
    return "none ranked" if value is None else f"{value:.0f}"


def _rank(account: dict[str, Any]) -> str:
    if account["rank"] is not None:
        return f"#{account['rank']:,}"
    return f"unranked ({account['unranked_reason']})"


def chance_shift(figures: dict[str, Any]) -> float:
    """The largest move of the shown chance of SHOWN_GAP from before the upsets."""
    steps = figures["upsets"]["steps"]
    return max(abs(step["shown"] - steps[0]["shown"]) for step in steps)


def report(figures: dict[str, Any], options: argparse.Namespace) -> tuple[list[str], Figure]:
    loads = figures["load_average"]
    pair = figures["upsets"]["pair"]
    lines = [
        machine_description(),
        "",
        f"Command: `make bench-abuse` (`python -m bench.abuse --games {options.games} "
        f"--players {options.players}`). bench.scale's league of {options.games:,} games among "
        f"{options.players:,} players on PostgreSQL ({postgres.SERVER}, as configured), "
        "imported and rated once, cloned for the run and recomputed and refreshed by the code "
        "checked out. Served by gunicorn (4 workers x 4 threads, DEBUG=0) on 127.0.0.1 with a "
        "private Redis (maxmemory 256 MB, allkeys-lru), a fresh one for each measurement. "
        "Crafted games go through `import_replays --rate` (import, rating, refresh with its "
        "calibration refit), as a feed's would. Load average (1, 5, 15 min): "
        f"{' '.join(f'{x:.2f}' for x in loads['start'])} at the start of the measurements, "
        f"{' '.join(f'{x:.2f}' for x in loads['end'])} at the end.",
        "",
        "(a) Win-trading: a new account beats fresh spare accounts (round after round), the "
        "rank is the site's (rating_ranks) after the import, rating and refresh; the second "
        "attack runs after the first, so its rank counts the first attacker if ranked.",
        "",
        "| attack | games | rating | rank | best honest rating |",
        "|---|---:|---:|---|---:|",
        *(
            f"| 1 account x {a['spares']} spares x {a['games_each']} games | {a['games']:,} "
            f"| {a['value']:.0f} ±{2 * a['deviation']:.0f} | {_rank(a)} "
            f"| {_best_honest(a['best_honest'])} |"
            for a in figures["win_trading"]
        ),
        "",
        "(b) Crafted upsets: the weaker of two settled accounts "
        f"{pair['strong']['value'] - pair['weak']['value']:.0f} "
        f"points apart ({pair['strong']['value']:.0f} ±{2 * pair['strong']['deviation']:.0f} and "
        f"{pair['weak']['value']:.0f} ±{2 * pair['weak']['deviation']:.0f}) wins again and again; "
        "'shown' is the chance the site shows (and rates with) for a settled rating 200 points "
        "above another (1700 ±100 against 1500 ±100, no matchup), 'calibrated' the calculator's "
        "second number for it (how often such chances came true lately: the refitted "
        "temperature applied).",
        "",
        "| upsets | shown | calibrated | temperature | fit games |",
        "|---:|---:|---:|---:|---:|",
        *(
            f"| {s['upsets']:,} | {_percent(s['shown'])} | {_percent(s['calibrated'])} "
            f"| {s['temperature']:.3f} | {s['fit_games']:,} |"
            for s in figures["upsets"]["steps"]
        ),
        "",
        "The calculator page served after the 2,000 upsets reads "
        f"{_percent(figures['upsets']['served_calibrated'])} for the calibrated number.",
        "",
        f"(c) Search load: {CONNECTIONS} connections request "
        "`/calculator?a-name=XX&b-name=YY` with two-letter names of rare letters, each value "
        f"new (then the same with trailing spaces), for {options.load_seconds:.0f} s while one "
        f"more requests the cached `/about` in turn; its quiet median over "
        f"{options.quiet_requests} requests, half before the load and half after "
        "(the medians of each half in brackets).",
        "",
        "| page render throttle | /about quiet ms | under load ms | ratio | /about answers "
        "| calculator requests | calculator answers | calculator median ms |",
        "|---|---:|---:|---:|---|---:|---|---:|",
        *(
            f"| {label} | {s['quiet_ms']:.1f} ({s['quiet_before_ms']:.1f}, "
            f"{s['quiet_after_ms']:.1f}) | {s['loaded_ms']:.1f} | {s['ratio']:.2f} "
            f"| {_statuses(s['about_statuses'])} | {s['calculator_requests']:,} "
            f"| {_statuses(s['calculator_statuses'])} | {s['calculator_median_ms'] or 0:.1f} |"
            for label, s in figures["search_load"].items()
        ),
        "",
        f"(d) Cache fill: {options.fill:,} requests, a quarter each of `/?per=pN`, "
        "`/?page=0…01`, `/?active=3N` and `/search?name=qj` padded with spaces, after the "
        "canonical pages are cached; Redis keys and `used_memory` before and after.",
        "",
        "| page render throttle | keys added | bytes added | answers |",
        "|---|---:|---:|---|",
        *(
            f"| {label} | {f['keys_added']:,} | {f['bytes_added']:,} | {_statuses(f['statuses'])} |"
            for label, f in figures["cache_fill"].items()
        ),
    ]
    configured = figures["search_load"]["as configured"]
    fill = figures["cache_fill"]["throttle lifted"]
    ranks = ", ".join(_rank(a) for a in figures["win_trading"])
    text = (
        f"win-trading (10x100, 50x20): {ranks}; 200-point chance moved "
        f"{100 * chance_shift(figures):.2f} points by {UPSETS[-1]:,} upsets (calibrated "
        f"{_percent(figures['upsets']['steps'][0]['calibrated'])} → "
        f"{_percent(figures['upsets']['steps'][-1]['calibrated'])}); cached /about "
        f"{configured['ratio']:.2f}x its quiet median under the search load; the fill added "
        f"{fill['keys_added']} keys ({fill['bytes_added']:,} bytes) with the throttle lifted"
    )
    figure = Figure(
        "make bench-abuse",
        f"issue 35's audit at {options.games:,} games among {options.players:,} players",
        text,
        "issue 35: attacks unranked; shift < 1 point; ≤ 2x quiet; ≤ a handful of keys",
    )
    return lines, figure


def _statuses(counts: dict[Any, int]) -> str:
    return ", ".join(f"{count:,}x {status}" for status, count in sorted(counts.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_500_000)
    parser.add_argument("--players", type=int, default=1_080_000)
    parser.add_argument("--database", default="bench_abuse", help="and <name>_base")
    parser.add_argument("--rebuild", action="store_true", help="build the base league anew")
    parser.add_argument("--load-seconds", type=float, default=30.0)
    parser.add_argument("--quiet-requests", type=int, default=200)
    parser.add_argument("--fill", type=int, default=2000, help="requests of the cache fill")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--print-only", action="store_true", help="record nothing (history, BENCHMARKS.md)"
    )
    parser.add_argument("--child", choices=sorted(CHILDREN), help=argparse.SUPPRESS)
    parser.add_argument("players_ids", nargs="*", help=argparse.SUPPRESS)
    options = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratingsite.settings")
    # Pages served with DEBUG off need the static files' manifest.
    os.environ.setdefault("STATIC_ROOT", str(OUT / "static"))
    if options.child:
        _setup()
        child = CHILDREN[options.child]
        print(json.dumps(child(options.players_ids) if options.child == "rank" else child()))
        return
    OUT.mkdir(parents=True, exist_ok=True)
    figures = measure(options)
    lines, figure = report(figures, options)
    if options.json:
        options.json.write_text(json.dumps(figures, indent=1))
    publish(
        f"Abuse: issue 35's audit at {options.games:,} games (`make bench-abuse`)",
        lines,
        figure,
        print_only=options.print_only,
    )


if __name__ == "__main__":
    main()
