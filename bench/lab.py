"""`python -m bench.lab`: the rating systems lab on simulated leagues, through PostgreSQL.

1. Accuracy: a simulated league (default 200,000 games among 2,000 players) is stored
   with the ingestion service in a fresh database and scored by `evaluate_ratings`;
   beside the systems, the log loss of the hidden true skills that decided the games
   (no system can do better on average).  Then `tune_ratings` on the same history.
2. Speed of each system's pure update loop beside the PyPI packages
   (bench.ratings_speed.measure), and each system alone through the lab's replay.
3. `evaluate_ratings` on 1,000,000 games with all five systems, as its own
   `manage.py` process: wall time (start-up included) and peak memory.

The database (default `bench_lab`) is dropped and created with psql for each league.
A dated section with the machine is appended to docs/benchmarks-history.md; update
its row of BENCHMARKS.md's summary table by hand (the command reminds you).

    python -m bench.lab [--games N] [--players N] [--big-games N] [--big-players N]
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import time
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime

from bench import postgres
from bench.import_recompute import Step, run_step
from bench.ratings_speed import measure
from bench.report import load_line, machine_description, publish

DATABASE = "bench_lab"
START = datetime(2026, 1, 5, tzinfo=UTC)
SEASON_DAYS = 90


def fresh_database(database: str = DATABASE) -> str:
    """Drop and create the bench database, migrate it, and point this process at it."""
    from django.db import connections

    connections.close_all()
    url = postgres.recreate(database)
    run_step(["migrate", "--no-input", "-v0"], url)
    return url


def _oracle(games: Iterable[dict], league, overall, established) -> Iterator[dict]:
    """Pass the games through, scoring the league's true probability of each on the way
    (skills at the time and the hidden matchup offsets)."""
    from matches.services.evaluation import ESTABLISHED_GAMES

    played: dict[tuple[str, int], int] = {}
    for game in games:
        keys = [(side["id"], league.character_index[side["character"]]) for side in game["players"]]
        probability = league.win_probability(game)
        score = 1.0 if game["winner"] == 1 else 0.0
        overall.add(probability, score)
        if min(played.get(key, 0) for key in keys) >= ESTABLISHED_GAMES:
            established.add(probability, score)
        for key in keys:
            played[key] = played.get(key, 0) + 1
        yield game


def store_league(
    players: int, games: int, seed: int, days: float = SEASON_DAYS
) -> tuple[float, float, float]:
    """Store a league through store_replays: (seconds, oracle log loss overall, established)."""
    from matches.ratings.metrics import PredictionMetrics
    from matches.replays.readers import iter_replay_payloads
    from matches.services.file_import import file_import_source
    from matches.services.ingest import store_replays
    from matches.simulation.league import LeagueSimulator

    league = LeagueSimulator(players, seed, START, rate=games / (days * 86400))
    overall, established = PredictionMetrics(), PredictionMetrics()
    started = time.perf_counter()
    result = store_replays(
        source=file_import_source(),
        replays=iter_replay_payloads(_oracle(league.games(games), league, overall, established)),
    )
    seconds = time.perf_counter() - started
    if result.new != games:
        raise RuntimeError(f"stored {result} of {games} simulated games")
    return seconds, overall.log_loss, established.log_loss


def accuracy_section(players: int, games: int, seed: int, tune: bool) -> list[str]:
    from matches.selectors.lab import latest_lab_report

    url = fresh_database()
    print(f"[accuracy] storing {games:,} games among {players:,} players ...", flush=True)
    stored, oracle, oracle_established = store_league(players, games, seed)
    print(f"  {stored:.0f} s; evaluating ...", flush=True)
    evaluated = run_step(["evaluate_ratings"], url)
    print(evaluated.output, flush=True)
    report = latest_lab_report()
    rows = [
        f"| {s['name']} | {s['overall']['log_loss']:.4f} | {s['overall']['brier']:.4f} "
        f"| {s['overall']['accuracy']:.4f} | {s['established']['log_loss']:.4f} "
        f"| {s['established']['brier']:.4f} | {s['established']['accuracy']:.4f} |"
        for s in report["systems"]
    ]
    established_games = report["systems"][0]["established"]["games"]
    lines = [
        f"### Accuracy on a simulated league: {games:,} games, {players:,} players, "
        f"{SEASON_DAYS} days (seed {seed})",
        "",
        "`evaluate_ratings` on the stored league: every game predicted before it is learned. "
        f"Established: both ratings had at least {report['established_min_games']} earlier "
        f"games ({established_games:,} games).",
        "",
        "| system | log loss | Brier | accuracy | log loss (established) "
        "| Brier (established) | accuracy (established) |",
        "|---|---:|---:|---:|---:|---:|---:|",
        *rows,
        f"| true skills (the simulator's) | {oracle:.4f} | | | {oracle_established:.4f} | | |",
        "",
        "Moonstone has no probability model: its P(win) is the logistic curve on its rating "
        "difference (400 points for 10:1 odds).",
        "",
        "Calibration of the site's Glicko (predicted P(A wins) against how often A won):",
        "",
        "| bin | games | predicted | observed | games (established) | predicted | observed |",
        "|---|---:|---:|---:|---:|---:|---:|",
        *_calibration(report, "glicko"),
        "",
    ]
    if tune:
        print("[accuracy] tune_ratings ...", flush=True)
        tuned = run_step(["tune_ratings"], url)
        print(tuned.output, flush=True)
        lines += [
            f"`tune_ratings` on the same league ({tuned.seconds:.0f} s):",
            "",
            "```",
            tuned.output,
            "```",
            "",
        ]
    return lines


def _calibration(report: dict, name: str) -> list[str]:
    """A system's calibration table, overall and established, as Markdown rows."""
    system = next(s for s in report["systems"] if s["name"] == name)
    rows = []
    for overall, established in zip(
        system["overall"]["calibration"], system["established"]["calibration"], strict=True
    ):
        cells = [
            f"{table['games']:,} | {table['predicted']:.3f} | {table['observed']:.3f}"
            if table["games"]
            else "0 | |"
            for table in (overall, established)
        ]
        rows.append(f"| {overall['low']:.1f}-{overall['high']:.1f} | {' | '.join(cells)} |")
    return rows


def speed_section(games: int) -> list[str]:
    print(f"[speed] pure update loops, {games:,} games ...", flush=True)
    rates = measure(games)
    return [
        f"### Pure update loops ({games:,} random games among 1,000 players)",
        "",
        "bench.ratings_speed.measure: look up both states, update, store; nothing else.",
        "",
        "| system | games/s |",
        "|---|---:|",
        *(f"| {name} | {rate:,.0f} |" for name, rate in rates.items()),
        "",
    ]


def replay_rates() -> list[str]:
    """Games/s of reading the stored matches alone, and of each system alone in the lab."""
    from matches.services.evaluation import DEFAULT_SYSTEMS, lab_system, replay

    rows = []
    for name in ("(reading the matches only)", *DEFAULT_SYSTEMS):
        systems = [] if name.startswith("(") else [lab_system(name)]
        started = time.perf_counter()
        games = replay(systems).games
        seconds = time.perf_counter() - started
        rows.append(f"| {name} | {seconds:.1f} | {games / seconds:,.0f} |")
        print(rows[-1], flush=True)
    return rows


def opponents_timing(url: str, samples: int = 200) -> str:
    """fair_opponents for random ratings, after rating the stored league."""
    from datetime import timedelta

    from django.conf import settings
    from django.db.models import Max

    from matches.selectors.opponents import fair_opponents
    from players.models import Rating

    print("[1M] recompute_ratings, then fair_opponents ...", flush=True)
    run_step(["recompute_ratings"], url)
    now = Rating.objects.aggregate(newest=Max("last_played_at"))["newest"]
    active = Rating.objects.filter(
        last_played_at__gte=now - timedelta(days=settings.FAIR_OPPONENT_DAYS)
    ).count()
    targets = Rating.objects.order_by("?").values_list("player_id", "character_id")[:samples]
    seconds = []
    for player_id, character_id in targets:
        started = time.perf_counter()
        fair_opponents(player_id, character_id, now=now)
        seconds.append(time.perf_counter() - started)
    seconds.sort()
    return (
        f"`fair_opponents` for {len(seconds)} random ratings among {Rating.objects.count():,} "
        f"({active:,} active in the last {settings.FAIR_OPPONENT_DAYS} days): "
        f"median {seconds[len(seconds) // 2] * 1000:.1f} ms, "
        f"95th percentile {seconds[len(seconds) * 95 // 100] * 1000:.1f} ms."
    )


def big_section(players: int, games: int, seed: int) -> list[str]:
    url = fresh_database()
    print(f"[1M] storing {games:,} games among {players:,} players ...", flush=True)
    stored, _, _ = store_league(players, games, seed)
    print(f"  {stored:.0f} s; evaluate_ratings ...", flush=True)
    load = os.getloadavg()[0]
    evaluated: Step = run_step(["evaluate_ratings"], url)
    print(evaluated.output, flush=True)
    print("[1M] each system alone ...", flush=True)
    rows = replay_rates()
    opponents = opponents_timing(url)
    print(opponents, flush=True)
    verdict = "within" if evaluated.seconds < 120 else "OVER"
    return [
        f"### `evaluate_ratings` on {games:,} games, {players:,} players, all five systems",
        "",
        f"Wall time {evaluated.seconds:.1f} s as its own `manage.py` process, start-up "
        f"included ({verdict} the 2-minute target); peak memory {evaluated.peak_mb:,.0f} MB. "
        f"Load average (1 min) when it started: {load:.1f}. "
        f"Stored first with store_replays in {stored:.0f} s.",
        "",
        "Each system alone through the same replay (reading the matches in keyset pages, "
        "predicting, scoring, updating), in this process:",
        "",
        "| system | seconds | games/s |",
        "|---|---:|---:|",
        *rows,
        "",
        opponents,
        "",
    ]


def season_bump_log_losses(
    games: int, players: int, seed: int, bumps: Iterable[float], season_days: int = 30
) -> dict[float, float]:
    """Log loss of the site's Glicko with each deviation `bump` at every season's start
    (0: the site as it is) on a simulated league of 180 days cut into seasons, in memory
    (matches.ratings.season_bump)."""
    from matches.ratings.base import ContinuousGlicko
    from matches.ratings.season_bump import SeasonStartBump
    from matches.simulation import LeagueSimulator
    from matches.simulation.league import league_seasons

    days = 180
    league = LeagueSimulator(players, seed, START, rate=games / (days * 86400))
    replays = list(league.games(games))
    starts = [
        datetime.combine(first, datetime.min.time(), tzinfo=UTC).timestamp()
        for _, first, _ in league_seasons(START, days, season_days)
    ]
    losses = {}
    for bump in bumps:
        system = SeasonStartBump(starts, bump) if bump else ContinuousGlicko()
        states: dict[tuple[str, str], object] = {}
        total = 0.0
        for replay in replays:
            at = datetime.fromisoformat(replay["played_at"]).timestamp()
            a, b = ((p["id"], p["character"]) for p in replay["players"])
            state_a = states.get(a) or system.initial()
            state_b = states.get(b) or system.initial()
            chance = system.expected_score(state_a, state_b, at)
            won = replay["winner"] == 1
            total -= math.log(chance if won else 1 - chance)
            states[a], states[b] = system.update(state_a, state_b, 1.0 if won else 0.0, at)
        losses[bump] = total / len(replays)
    return losses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--players", type=int, default=2_000)
    parser.add_argument("--big-games", type=int, default=1_000_000)
    parser.add_argument("--big-players", type=int, default=100_000)
    parser.add_argument("--speed-games", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--no-tune", action="store_true", help="skip tune_ratings")
    parser.add_argument(
        "--print-only", action="store_true", help="print the section, record nothing"
    )
    parser.add_argument(
        "--season-bump",
        action="store_true",
        help="only compare deviation bumps at seasons' starts (in memory) and print them",
    )
    options = parser.parse_args()
    if options.season_bump:
        for bump, loss in season_bump_log_losses(
            options.games, options.players, options.seed, (0, 20, 40, 60, 90)
        ).items():
            print(f"bump {bump:>3}: log loss {loss:.5f}")
        return

    # This process reads and writes the bench database too (storing, per-system replays).
    os.environ["DATABASE_URL"] = postgres.url(DATABASE)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratingsite.settings")
    import django

    django.setup()

    uname = subprocess.run(["uname", "-a"], capture_output=True, text=True).stdout.strip()
    nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    lines = [machine_description(), f"`uname -a`: {uname}; `nproc`: {nproc}."]
    # The machine may be shared: the load says how much else ran beside the bench.
    load_before = os.getloadavg()[0]
    sections = accuracy_section(options.players, options.games, options.seed, not options.no_tune)
    sections += speed_section(options.speed_games)
    sections += big_section(options.big_players, options.big_games, options.seed)
    lines += [
        load_line(load_before),
        "",
        *sections,
    ]
    title = "Rating systems lab (`python -m bench.lab`)"
    publish(title, lines, print_only=options.print_only)


if __name__ == "__main__":
    main()
