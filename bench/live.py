"""`make bench-live`: a live feed at 300 games/s, one worker pulling and rating it.

``serve_replay_feed`` plays a simulated league from the moment it starts; one Celery
worker (and beat, pulling and rating every 2 seconds) stores and rates the games in a
fresh PostgreSQL database with Redis as the broker. A game appears in the feed at its
``played_at`` (the feed serves the games played up to now, to the second), so the lag
of a game is ``rated_at - played_at``. After the run the games of the measured window
must all be stored once and rated once. The run is appended to docs/benchmarks-history.md
and its row of BENCHMARKS.md rewritten.

    python -m bench.live [--rate 300] [--seconds 120] [--schedule 2] [--follow 0.2]
                         [--players 50000]
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench import postgres

ROOT = Path(__file__).resolve().parent.parent
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14")
# Its own database name when several checkouts share the server.
DATABASE = os.environ.get("BENCH_LIVE_DATABASE", "bench_live")
SEED = 20
WARM_UP_SECONDS = 20


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.2)


def feed_answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "?limit=1", timeout=2):
            return True
    except OSError:
        return False


def percentile(values: list[float], share: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[round(share * 100) - 1]


class Stack:
    """The feed, the worker and beat as child processes, stopped together."""

    def __init__(self, env: dict[str, str], logs: Path) -> None:
        self.env, self.logs, self.children = env, logs, []

    def manage(self, *arguments: str) -> None:
        subprocess.run(
            [sys.executable, "manage.py", *arguments], cwd=ROOT, env=self.env, check=True
        )

    def start(self, name: str, *command: str) -> None:
        log = (self.logs / f"{name}.log").open("wb")
        self.children.append(
            subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        )

    def stop(self) -> None:
        for child in self.children:
            child.send_signal(signal.SIGTERM)
        for child in self.children:
            try:
                child.wait(timeout=30)
            except subprocess.TimeoutExpired:
                child.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=300.0, help="games per second")
    parser.add_argument("--seconds", type=int, default=120, help="how long the feed is measured")
    parser.add_argument("--schedule", type=float, default=2.0, help="pull and rate every N s")
    parser.add_argument(
        "--follow", type=float, default=0.2, help="pause between the pulls of a live feed"
    )
    parser.add_argument("--players", type=int, default=50_000)
    options = parser.parse_args()

    database_url = postgres.recreate(DATABASE)
    logs = Path(tempfile.mkdtemp(prefix="bench-live-"))
    queue = f"bench-live-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_QUEUE": queue,
        "CELERY_PULL_SECONDS": str(options.schedule),
        "CELERY_RATE_SECONDS": str(options.schedule),
        "CELERY_PULL_FOLLOW_PAUSE": str(options.follow),
        "VAR_DIR": str(logs / "var"),
    }
    os.environ.update(DATABASE_URL=database_url, VAR_DIR=env["VAR_DIR"])
    stack = Stack(env, logs)
    stack.manage("migrate", "--no-input", "-v0")
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    celery = [sys.executable, "-m", "celery", "-A", "ratingsite"]
    try:
        stack.manage("sources", "add", "feed", "http", f"url={url}", "page_size=5000")
        # Game 0 is played once the worker and beat are up: their start is no lag of a game.
        first_game = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=WARM_UP_SECONDS)
        stack.start(
            "feed",
            sys.executable, "manage.py", "serve_replay_feed", "--port", str(port),
            "--rate", str(options.rate), "--players", str(options.players), "--seed", str(SEED),
            "--start", first_game.isoformat(),
        )  # fmt: skip
        wait_until(lambda: feed_answers(url), 60, "the feed")
        stack.start("worker", *celery, "worker", "--loglevel", "INFO", "--concurrency", "2")
        stack.start("beat", *celery, "beat", "--loglevel", "INFO", "-s", str(logs / "beat"))
        print(f"feed at {url}, {options.rate:g} games/s for {options.seconds} s; logs in {logs}")
        results = measure(options)
    finally:
        stack.stop()
        import redis

        redis.Redis.from_url(REDIS_URL).delete(queue)
    report(options, results)


def expected_games(options: argparse.Namespace, start: datetime) -> set[tuple]:
    """The window's games as the feed plays them, keyed as the site keys one game
    (docs/replay-format.md#one-game-stored-once): by time and pair of players."""
    from matches.simulation.league import LeagueSimulator

    league = LeagueSimulator(options.players, SEED, start, rate=options.rate)
    return {
        (datetime.fromisoformat(game["played_at"]), *sorted(p["id"] for p in game["players"]))
        for game in league.games(round(options.seconds * options.rate))
    }


def measure(options: argparse.Namespace) -> dict:
    import django

    django.setup()
    from django.db.models import F, Sum

    from matches.models import Match, MatchRating, ReplaySource
    from players.models import Rating

    # The feed's game 0 is played at the second it started; the window is `seconds` long.
    wait_until(lambda: Match.objects.exists(), 60, "the first pull")
    start = Match.objects.order_by("played_at").values_list("played_at", flat=True)[0]
    end = start + timedelta(seconds=options.seconds)
    expected = expected_games(options, start)
    time.sleep(max(0.0, (end - django.utils.timezone.now()).total_seconds()))
    window = Match.objects.filter(played_at__lt=end)

    def drained() -> bool:
        return window.count() >= len(expected) and not window.pending().exists()

    wait_until(drained, 120, "the window to be stored and rated")
    rows = list(
        MatchRating.objects.filter(match__played_at__lt=end).values_list(
            "match__played_at", "match__player_a_id", "match__player_b_id", "rated_at"
        )
    )
    stored = [(played, a, b) for played, a, b, _ in rows]
    lags = sorted((rated - played).total_seconds() for played, _, _, rated in rows)
    last_rated = max(rated for *_, rated in rows)
    games = Rating.objects.aggregate(games=Sum(F("wins") + F("losses")))["games"] or 0
    counted_twice = games - 2 * MatchRating.objects.filter(counted=True).count()
    runs = ReplaySource.objects.get(name="feed").runs.filter(finished_at__isnull=False)
    return {
        "played": round(options.seconds * options.rate),
        "expected": len(expected),
        "stored": len(rows),
        "lost": len(expected - set(stored)),
        "doubled": len(stored) - len(set(stored)) + max(0, counted_twice),
        "p50": percentile(lags, 0.50),
        "p95": percentile(lags, 0.95),
        "max": lags[-1],
        "sustained": len(rows) / (last_rated - start).total_seconds(),
        "pulls": runs.count(),
        "pull_errors": runs.exclude(error="").count(),
    }


def report(options: argparse.Namespace, results: dict) -> None:
    from bench.report import Figure, append_section, machine_description

    redis_version = subprocess.run(
        ["redis-server", "--version"], capture_output=True, text=True, check=False
    ).stdout.split(" ")[2:3]
    lines = [
        machine_description() + f" Redis {''.join(redis_version).removeprefix('v=')}.",
        "",
        f"`python -m bench.live`: `serve_replay_feed` at {options.rate:g} games/s for "
        f"{options.seconds} s ({options.players} players) from {WARM_UP_SECONDS} s after "
        "the stack starts, one worker (prefork, concurrency 2) "
        f"pulling and rating with beat every {options.schedule:g} s, a pull that stored games "
        f"pulling again {options.follow:g} s later until the next beat and sending a rate, "
        "PostgreSQL and Redis on the same machine.",
        "",
        "| games played (distinct) | stored | lost | doubled | lag p50 | lag p95 | lag max "
        "| games/s sustained | pulls (with errors) |",
        "|---|---|---|---|---|---|---|---|---|",
        f"| {results['played']} ({results['expected']}) | {results['stored']} | {results['lost']} "
        f"| {results['doubled']} "
        f"| {results['p50']:.2f} s | {results['p95']:.2f} s | {results['max']:.2f} s "
        f"| {results['sustained']:.0f} | {results['pulls']} ({results['pull_errors']}) |",
        "",
        "Distinct: games counted once per (second, pair of players), the site's rule for one "
        "game; the simulator gives players a busy period after each game, so none share one. "
        "Lag: from the second a game appears in the feed (its played_at) to the commit of its "
        "rating (rated_at). Sustained: games of the window stored and rated per second, from "
        "the first game's appearance to the last rating.",
    ]
    figure = Figure(
        "make bench-live",
        f"a feed at {options.rate:g} games/s for {options.seconds} s, one worker pulling "
        "and rating",
        f"lag from a game's appearance to its rating: p50 {results['p50']:.2f} s, "
        f"p95 {results['p95']:.2f} s, max {results['max']:.2f} s; {results['stored']:,} stored, "
        f"{results['lost']} lost, {results['doubled']} doubled; "
        f"{results['sustained']:.0f} games/s sustained",
        "every game stored and rated once",
    )
    append_section("Live worker (make bench-live)", lines, figure)
    print("\n".join(lines))


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratingsite.settings")
    main()
