"""`make bench-faults`: real workers pull a hostile feed while being killed and cut off.

A fresh PostgreSQL database, Redis as the broker, and two Celery worker processes
pulling (through an `http` source with short timeouts) and rating the hostile feed of
bench.hostile_feed, with every behaviour of BEHAVIOURS on unless ``--behaviours`` names
some. This process sends `pull_replays` and `rate_matches` every second as beat would,
SIGKILLs a worker now and then (starting another) and ends the workers' database
connections with pg_terminate_backend in between. Once the faults are over it waits
(bounded) for the feed to be drained and everything rated, stops the workers and
checks, exiting non-zero if any check fails:

- every good game served is stored once (by source_replay_id) and rated once (nothing
  pending, wins + losses = 2 x counted games); no game the feed did not serve;
- the ratings equal those `recompute_all_ratings` rebuilds from the stored games;
- the source's cursor reached the end of the feed (no source stops for good);
- every bad replay is in RejectedReplay with a reason, and not stored;
- each future-dated game is stored once or rejected, none merged or stored twice;
- no dripped page was waited for to its end (a page has a wall-clock deadline).

A passing run's figures are appended to docs/benchmarks-history.md (and its row of
BENCHMARKS.md rewritten). tests/worker/test_fault_campaign.py
runs a smaller campaign through the same functions.

    python -m bench.faults [--good 600] [--behaviours nul,drip,...] [--database bench_faults]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # Django models load only once django.setup() has run
    from bench.hostile_feed import HostileFeed, Plan
    from matches.models import ReplaySource

ROOT = Path(__file__).resolve().parent.parent
APPLICATION_NAME = "fault-campaign-worker"
# The `http` source's wall-clock limit per page (page_timeout): far below the drip's
# length, far above a page's normal time.
PAGE_DEADLINE = 3.0
REDIS_URL = "redis://127.0.0.1:6379/14"


@dataclass(frozen=True)
class CampaignSettings:
    behaviours: tuple[str, ...]
    good: int = 600
    page_size: int = 5
    seed: int = 15
    workers: int = 2
    kills: int = 4
    terminations: int = 4
    fault_interval: float = 3.0  # seconds between two faults
    page_delay: float = 0.25  # per feed answer, so pulling lasts through the faults
    drip_seconds: float = 12.0
    drain_timeout: float = 120.0
    rating_batch: int = 40
    source_settings: dict = field(default_factory=dict)  # extra `http` settings


@dataclass
class CampaignResult:
    settings: CampaignSettings
    served: int = 0  # distinct replays in the feed
    good: int = 0
    stored: int = 0  # matches of the feed's source
    rejected: int = 0  # RejectedReplay rows of the feed's source
    kills: int = 0
    terminated: int = 0  # database connections ended
    faults_mid_feed: int = 0  # kills and terminations made before the feed was drained
    feed_requests: int = 0
    seconds: float = 0.0
    lost: list[str] = field(default_factory=list)
    doubled: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    pull_errors: Counter = field(default_factory=Counter)

    def summary(self) -> str:
        verdict = (
            "all checks passed" if not self.failures else "FAILED:\n- " + "\n- ".join(self.failures)
        )
        return (
            f"served {self.served} replays ({self.good} good), stored {self.stored}, "
            f"rejected {self.rejected}, lost {len(self.lost)}, doubled {len(self.doubled)}; "
            f"{self.kills} SIGKILLs, {self.terminated} connections terminated "
            f"({self.faults_mid_feed} faults before the feed was drained), "
            f"{self.feed_requests} page requests, {self.seconds:.0f} s; {verdict}"
            + "".join(f"\n  pull error x{n}: {e[:200]}" for e, n in self.pull_errors.most_common(8))
        )


class Workers:
    """Celery worker processes on the campaign's queue, each in its own process group."""

    def __init__(self, environment: dict[str, str], logs: Path, batch: int) -> None:
        self.environment = {**os.environ, **environment, "RATING_BATCH_SIZE": str(batch)}
        self.logs = logs
        self.running: list[subprocess.Popen] = []
        self.started = 0

    def start(self) -> None:
        name = f"faults{self.started}-{uuid.uuid4().hex[:6]}@%h"
        log = (self.logs / f"worker-{self.started}.log").open("wb")
        command = [sys.executable, "-m", "celery", "-A", "ratingsite", "worker"]
        command += ["--pool", "solo", "--loglevel", "INFO", "-n", name]
        command += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
        self.running.append(
            subprocess.Popen(
                command,
                cwd=ROOT,
                env=self.environment,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )
        self.started += 1

    def kill_one(self, number: int) -> None:
        """SIGKILL a running worker (with any child it has) and start another."""
        process = self.running.pop(number % len(self.running))
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        self.start()

    def stop(self) -> None:
        for process in self.running:
            process.terminate()
        for process in self.running:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=30)
        self.running = []


def terminate_connections(application_name: str) -> int:
    """What a database restart does to the workers: their connections end."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE application_name = %s AND datname = current_database()",
            [application_name],
        )
        return cursor.fetchone()[0]


def _terminate_while_working(application_name: str, within: float) -> int:
    """End the workers' connections the moment they have some: a worker holds one only
    while a task runs (Django closes it after each task)."""
    deadline = time.monotonic() + within
    while not (ended := terminate_connections(application_name)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return ended


def http_settings(url: str, settings: CampaignSettings) -> dict:
    """An `http` source that gives up and retries fast, with a short page deadline."""
    return {
        "url": url,
        "page_size": settings.page_size,
        "max_replays": 8 * settings.page_size,  # short pulls, so kills land between pages too
        "attempts": 4,
        "backoff": 0.1,
        "max_backoff": 0.5,
        "connect_timeout": 2.0,
        "read_timeout": 2.0,
        "page_timeout": PAGE_DEADLINE,
        **settings.source_settings,
    }


def run_campaign(
    settings: CampaignSettings,
    *,
    worker_environment: dict[str, str],
    application_name: str,
    queue_length: Callable[[], int],
    logs: Path,
) -> CampaignResult:
    """Run the campaign against the database this process uses; the workers get
    ``worker_environment`` (DATABASE_URL tagged with ``application_name``, broker, queue)."""
    from django.utils import timezone

    from bench.hostile_feed import HostileFeed, build_plan
    from matches.models import ReplaySource

    plan = build_plan(
        list(settings.behaviours),
        good=settings.good,
        page_size=settings.page_size,
        seed=settings.seed,
        now=timezone.now(),
    )
    feed = HostileFeed(plan, drip_seconds=settings.drip_seconds, page_delay=settings.page_delay)
    source = ReplaySource.objects.create(
        name="hostile-feed", kind=ReplaySource.Kind.HTTP, settings=http_settings(feed.url, settings)
    )
    result = CampaignResult(settings)
    workers = Workers(worker_environment, logs, settings.rating_batch)
    started = time.monotonic()
    try:
        for _ in range(settings.workers):
            workers.start()
        _faults_then_drain(settings, workers, application_name, queue_length, result, source, plan)
    finally:
        workers.stop()
        feed.close()
    result.seconds = time.monotonic() - started
    result.feed_requests = feed.requests
    check(result, plan, feed, source)
    return result


def _faults_then_drain(
    settings: CampaignSettings,
    workers: Workers,
    application_name: str,
    queue_length: Callable[[], int],
    result: CampaignResult,
    source: ReplaySource,
    plan: Plan,
) -> None:
    """Send the periodic tasks every second; kill a worker and end the workers' connections
    in turn, fault_interval apart; then wait (bounded) for the feed to be drained."""
    faults = [
        fault
        for n in range(max(settings.kills, settings.terminations))
        for fault, times in (("kill", settings.kills), ("terminate", settings.terminations))
        if n < times
    ]
    next_fault = time.monotonic() + settings.fault_interval
    deadline = None
    while True:
        _send_tasks(queue_length)
        if faults and time.monotonic() >= next_fault:
            result.faults_mid_feed += not _drained(source, plan.end_cursor)
            if faults.pop(0) == "kill":
                workers.kill_one(result.kills)
                result.kills += 1
            else:
                result.terminated += _terminate_while_working(
                    application_name, settings.fault_interval
                )
            next_fault = time.monotonic() + settings.fault_interval
        if not faults:
            deadline = deadline or time.monotonic() + settings.drain_timeout
            if _drained(source, plan.end_cursor) or time.monotonic() > deadline:
                return
        time.sleep(1.0)


def _send_tasks(queue_length: Callable[[], int]) -> None:
    """As beat would, without piling tasks up behind a slow pull."""
    from matches.tasks import pull_replays, rate_matches

    if queue_length() < 4:
        pull_replays.delay()
        rate_matches.delay()


def _drained(source: ReplaySource, end_cursor: str) -> bool:
    from matches.models import Match

    source.refresh_from_db(fields=["cursor"])
    return source.cursor == end_cursor and not Match.objects.pending().exists()


def check(result: CampaignResult, plan: Plan, feed: HostileFeed, source: ReplaySource) -> None:
    """Fill in the figures and every failed check of a finished campaign."""
    from matches.models import Match, RejectedReplay

    source.refresh_from_db()
    reached = int(source.cursor or 0)

    def unread(replay: str) -> str:
        page = plan.page_of[replay]
        return f" (never read: the source stopped before page {page})" if reached < page else ""

    stored = Counter(Match.objects.filter(source=source).values_list("source_replay_id", flat=True))
    rejected = list(RejectedReplay.objects.filter(source=source).values_list("raw", "reason"))
    result.served = len(plan.good) + len(plan.bad) + len(plan.future)
    result.good = len(plan.good)
    result.stored = sum(stored.values())
    result.rejected = len(rejected)
    result.lost = [replay for replay in plan.good if stored[replay] == 0]
    result.doubled = [replay for replay, times in stored.items() if times > 1]
    failures = result.failures
    if (
        result.kills < result.settings.kills
        or result.terminated == 0 < result.settings.terminations
    ):
        failures.append(f"faults not all made: {result.kills} kills, {result.terminated} ended")
    if result.lost:
        failures.append(f"{len(result.lost)} good games never stored, e.g. {result.lost[:5]}")
    if result.doubled:
        failures.append(f"games stored more than once: {result.doubled[:5]}")
    unknown = set(stored) - set(plan.good) - set(plan.bad) - set(plan.future)
    if unknown:
        failures.append(f"games the feed never served: {sorted(unknown)[:5]}")
    for replay, behaviour in plan.bad.items():
        reasons = [reason for raw, reason in rejected if f'"{replay}"' in raw[:300]]
        if stored[replay]:
            failures.append(f"{behaviour}: the bad replay {replay} was stored as a game")
        elif not any(reason.strip() for reason in reasons):
            failures.append(
                f"{behaviour}: {replay} is not in RejectedReplay with a reason{unread(replay)}"
            )
    for replay in plan.future:
        kept = any(f'"{replay}"' in raw[:300] for raw, _ in rejected)
        if stored[replay] + kept != 1:
            failures.append(
                f"future: {replay} stored {stored[replay]} times and "
                f"{'' if kept else 'not '}rejected (expected exactly one of the two)"
                + unread(replay)
            )
    for drip in feed.drips:
        if drip.read_to_the_end:
            failures.append(
                f"drip: the worker read the whole dripped page {drip.page} over "
                f"{drip.seconds:.1f} s instead of giving up at a page deadline"
            )
    errors = Counter(source.runs.exclude(error="").values_list("error", flat=True))
    result.pull_errors = errors
    if source.cursor != plan.end_cursor:
        last = source.runs.order_by("-started_at").values_list("error", flat=True).first()
        failures.append(
            f"the source stopped at page {source.cursor or '0'} of {plan.end_cursor} "
            f"(last pull's error: {(last or 'none')[:300]!r})"
        )
    failures += _rating_failures()


def _rating_failures() -> list[str]:
    """Rated once, and equal to a recompute from scratch (which rewrites the tables)."""
    from django.db.models import F, Sum
    from django.utils import timezone

    from matches.models import Match, MatchRating
    from matches.services.rating.decay import decay_all_ratings
    from matches.services.rating.recompute import recompute_all_ratings
    from players.models import Rating

    failures = []
    pending = Match.objects.pending().count()
    if pending:
        failures.append(f"{pending} games stored but never rated")
    games = Rating.objects.aggregate(games=Sum(F("wins") + F("losses")))["games"] or 0
    counted = MatchRating.objects.filter(counted=True).count()
    if games != 2 * counted:
        failures.append(f"wins + losses = {games}, not twice the {counted} counted games")
    # A recompute stores the ratings decayed as the periodic decay leaves them.
    now = timezone.now()
    decay_all_ratings(now)
    live = _rating_state()
    recompute_all_ratings(now=now)
    rebuilt = _rating_state()
    if live.keys() != rebuilt.keys():
        failures.append("the rated games or ratings differ from a recompute's")
        return failures
    different = [
        key
        for key, values in rebuilt.items()
        if any(
            abs(a - b) > 1e-9 if isinstance(a, float) else a != b
            for a, b in zip(live[key], values, strict=True)
        )
    ]
    if different:
        failures.append(f"{len(different)} ratings differ from a recompute, e.g. {different[:3]}")
    return failures


def _rating_state() -> dict:
    from matches.models import MatchRating
    from players.models import Rating

    fields = ("value", "deviation", "wins", "losses", "peak_value", "last_decay_at")
    state = {
        ("rating", r[0], r[1]): r[2:]
        for r in Rating.objects.values_list("player_id", "character_id", *fields)
    }
    columns = ("counted", "value_a", "deviation_a", "change_a", "value_b", "change_b")
    for row in MatchRating.objects.values_list("match_id", *columns):
        state[("match", row[0])] = row[1:]
    return state


def main() -> None:
    from bench.hostile_feed import BEHAVIOURS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--good", type=int, default=600, help="good replays in the feed")
    parser.add_argument(
        "--behaviours",
        default=",".join(BEHAVIOURS),
        help=f"comma-separated, from: {', '.join(BEHAVIOURS)}",
    )
    parser.add_argument("--kills", type=int, default=4)
    parser.add_argument("--terminations", type=int, default=4)
    parser.add_argument("--drain-timeout", type=float, default=120.0, help="seconds")
    parser.add_argument("--database", default="bench_faults", help="dropped and created")
    parser.add_argument("--redis", default=os.environ.get("BENCH_REDIS_URL", REDIS_URL))
    parser.add_argument(
        "--setting",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an extra setting of the `http` source (repeatable)",
    )
    parser.add_argument(
        "--print-only", action="store_true", help="record nothing (history, BENCHMARKS.md)"
    )
    options = parser.parse_args()
    behaviours = tuple(name for name in options.behaviours.split(",") if name)

    from bench import postgres

    database_url = postgres.recreate(options.database)
    logs = Path(tempfile.mkdtemp(prefix="bench-faults-"))
    queue = f"bench-faults-{uuid.uuid4().hex[:8]}"
    os.environ.update(
        DATABASE_URL=database_url,
        CELERY_BROKER_URL=options.redis,
        CELERY_QUEUE=queue,
        VAR_DIR=str(logs / "var"),
        DJANGO_SETTINGS_MODULE="ratingsite.settings",
    )
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input", "-v0"], cwd=ROOT, check=True
    )
    import django
    import redis

    django.setup()
    broker = redis.Redis.from_url(options.redis)
    settings = CampaignSettings(
        behaviours,
        good=options.good,
        kills=options.kills,
        terminations=options.terminations,
        drain_timeout=options.drain_timeout,
        source_settings=dict(setting.split("=", 1) for setting in options.setting),
    )
    print(f"fault campaign: {', '.join(behaviours) or 'no hostile pages'}; logs in {logs}")
    try:
        result = run_campaign(
            settings,
            worker_environment={
                "DATABASE_URL": f"{database_url}?application_name={APPLICATION_NAME}",
                "CELERY_BROKER_URL": options.redis,
                "CELERY_QUEUE": queue,
                "VAR_DIR": str(logs / "var"),
            },
            application_name=APPLICATION_NAME,
            queue_length=lambda: broker.llen(queue),
            logs=logs,
        )
    finally:
        broker.delete(queue)
    print(result.summary())
    if not result.failures and not options.print_only:
        report(result)
    sys.exit(1 if result.failures else 0)


def report(result: CampaignResult) -> None:
    from bench.report import Figure, append_section, machine_description

    settings = result.settings
    errors = sum(result.pull_errors.values())
    lines = [
        machine_description(),
        "",
        f"`python -m bench.faults`: {settings.workers} worker processes (solo pool) pulling "
        f"and rating a hostile feed through an `http` source, PostgreSQL and Redis on the same "
        f"machine; {result.kills} SIGKILLs of a worker and {result.terminated} database "
        f"connections ended with pg_terminate_backend, {settings.fault_interval:g} s apart "
        f"({result.faults_mid_feed} of these faults before the feed was drained). "
        f"Hostile behaviours on: {', '.join(settings.behaviours) or 'none'}.",
        "",
        "| replays served (good) | stored | rejected | duplicates | lost | SIGKILLs "
        "| connections terminated | page requests | pulls ended early | seconds |",
        "|---|---|---|---|---|---|---|---|---|---|",
        f"| {result.served} ({result.good}) | {result.stored} | {result.rejected} "
        f"| {len(result.doubled)} | {len(result.lost)} | {result.kills} | {result.terminated} "
        f"| {result.feed_requests} | {errors} | {result.seconds:.0f} |",
        "",
        "Every check passed: each good game stored once and rated once, ratings equal to a "
        "recompute (1e-9), the cursor at the end of the feed, each bad replay in "
        "RejectedReplay with its reason. Seconds: from the first worker's start to drained. "
        "Pulls ended early: by an error, or by another pull that moved the cursor first.",
    ]
    figure = Figure(
        "make bench-faults",
        f"{settings.workers} workers SIGKILLed and cut off while pulling a hostile feed",
        f"every check passed with {len(settings.behaviours)} hostile behaviours: "
        f"{result.stored} stored, {result.rejected} rejected, {len(result.lost)} lost, "
        f"{len(result.doubled)} doubled, through {result.kills} SIGKILLs and "
        f"{result.terminated} ended connections",
        "nothing lost, doubled or stuck",
    )
    append_section("Fault campaign (make bench-faults)", lines, figure)
    print("\n".join(lines))


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
