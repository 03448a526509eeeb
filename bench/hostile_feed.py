"""A hostile replay feed on 127.0.0.1 for the fault campaign (bench.faults and its test).

It serves a deterministic list of good replays in pages of the feed format
(docs/replay-format.md#the-http-feed; the cursor is a page index) with hostile pages mixed
in, each switched on by name (BEHAVIOURS). It knows what a sound puller must end with:
every good replay stored once, every bad one in RejectedReplay with its reason, every
future-dated one stored once or rejected (never merged with another, never stored twice),
and no dripped page waited for to its end.

Bad replays carry the id ``bad-<behaviour>`` as their first key, so the id is at the
start of any raw text kept for them, however long the rest.
"""

from __future__ import annotations

import contextlib
import json
import random
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

from bench.loopback import LoopbackFeedServer
from players.seed_roster import SEED_CODES

BEHAVIOURS = {
    "nul": "a replay whose player name holds a NUL byte (JSON \\u0000), among good ones",
    "surrogate": "a replay whose player name holds a lone surrogate (JSON \\ud800)",
    "control": "a replay whose player name holds control characters",
    "huge": "a replay whose player name is a 1 MiB string",
    "nested": "a replay whose player name is a list nested 100,000 deep (alone on its page)",
    "empty_next": 'an empty page with a non-null next ({"replays": [], "next": ...})',
    "drip": "a page sent a byte at a time for longer than the page deadline (first attempt)",
    "truncated": "a page cut short of its Content-Length (first attempt)",
    "http_500": "HTTP 500 (first two attempts)",
    "future": "three distinct games of one pair dated a day ahead (beyond the clock skew)",
    "duplicates": "a page repeating games of earlier pages",
}
# Pages that answer wrongly on their first attempts: fault -> how many attempts.
_ATTEMPT_FAULTS = {"drip": 1, "truncated": 1, "http_500": 2}
_BAD_NAMES = {
    "nul": "Nul\u0000Byte",
    "surrogate": "Lone\ud800Surrogate",
    "control": "Bell\u0007Esc\u001b",
    "huge": "H" * (1 << 20),
}
NESTING = 100_000
_NESTED_MARK = "__nested__"
_CODES = list(SEED_CODES)
BASE_TIME = datetime(2026, 1, 5, tzinfo=UTC)


@dataclass
class Page:
    body: bytes
    fault: str | None = None


@dataclass
class DripOutcome:
    page: int
    seconds: float  # how long the client listened before closing, or the whole drip
    read_to_the_end: bool


@dataclass
class Plan:
    """The pages and what a sound puller must do with each replay of them."""

    pages: list[Page] = field(default_factory=list)
    good: list[str] = field(default_factory=list)  # stored exactly once
    bad: dict[str, str] = field(default_factory=dict)  # id -> behaviour: rejected with reason
    future: list[str] = field(default_factory=list)  # stored once or rejected, never lost
    page_of: dict[str, int] = field(default_factory=dict)  # bad and future replays' pages

    @property
    def end_cursor(self) -> str:
        """Where the cursor of a puller that read everything stands."""
        return str(len(self.pages))


def good_replays(count: int, seed: int, players: int = 30) -> list[dict]:
    """Distinct games: one a minute and a half apart, so no two share a moment and pair."""
    rng = random.Random(seed)
    replays = []
    for number in range(count):
        a, b = rng.sample(range(players), 2)
        replays.append(
            {
                "id": f"good-{number}",
                "played_at": (BASE_TIME + timedelta(seconds=90 * number)).isoformat(),
                "floor": 10,
                "winner": rng.choice((1, 2)),
                "players": [_player(a, rng), _player(b, rng)],
            }
        )
    return replays


def _player(number: int, rng: random.Random, name: object = None) -> dict:
    return {
        "id": str(1000 + number),
        "name": f"Player{number}" if name is None else name,
        "character": _CODES[number % len(_CODES)],
        "platform": rng.choice(("pc", "ps", "xbox")),
    }


# Bad and future-dated replays name players of their own (the good games use 0-29), so
# however a puller times them, the good games' ratings stay those of a recompute: games
# rated out of time order legitimately differ from one (README, "Late games").
def _bad_replay(behaviour: str, rng: random.Random, name: object) -> dict:
    return {
        "id": f"bad-{behaviour}",
        "played_at": BASE_TIME.isoformat(),
        "winner": 1,
        "players": [_player(40, rng, name), _player(41, rng)],
    }


def _body(replays: list, next_cursor: str | None) -> bytes:
    # ensure_ascii (the default) writes NUL and lone surrogates as JSON escapes.
    text = json.dumps({"replays": replays, "next": next_cursor})
    nested = "[" * NESTING + "]" * NESTING
    return text.replace(json.dumps(_NESTED_MARK), nested).encode()


def build_plan(
    behaviours: list[str], *, good: int, page_size: int, seed: int, now: datetime
) -> Plan:
    """Good pages with the behaviours spread evenly among them, in the order named: bad
    replays and first-attempt faults go into a good page, the other behaviours are pages
    of their own before it."""
    unknown = sorted(set(behaviours) - set(BEHAVIOURS))
    if unknown:
        raise ValueError(f"unknown behaviours {unknown}; known: {list(BEHAVIOURS)}")
    rng = random.Random(seed)
    replays = good_replays(good, seed)
    chunks = [replays[i : i + page_size] for i in range(0, len(replays), page_size)]
    if len(chunks) <= len(behaviours):
        raise ValueError("too few good pages to spread the behaviours among them")
    at = {round((n + 1) * len(chunks) / (len(behaviours) + 1)): b for n, b in enumerate(behaviours)}
    plan = Plan(good=[replay["id"] for replay in replays])
    contents: list[tuple[list, str | None]] = []
    for number, chunk in enumerate(chunks):
        behaviour, fault = at.get(number), None
        if behaviour in _BAD_NAMES:
            bad = _bad_replay(behaviour, rng, _BAD_NAMES[behaviour])
            plan.bad[bad["id"]] = behaviour
            chunk = [*chunk[:2], bad, *chunk[2:]]
        elif behaviour in _ATTEMPT_FAULTS:
            fault = behaviour
        elif behaviour == "nested":
            plan.bad["bad-nested"] = behaviour
            contents.append(([_bad_replay(behaviour, rng, _NESTED_MARK)], None))
        elif behaviour == "empty_next":
            contents.append(([], None))
        elif behaviour == "future":
            games = _future_games(now + timedelta(days=1), rng)
            plan.future += [game["id"] for game in games]
            contents.append((games, None))
        elif behaviour == "duplicates":
            earlier = [replay for page in chunks[:number] for replay in page]
            contents.append((earlier[:: max(1, len(earlier) // 4)][:4], None))
        contents.append((chunk, fault))
    for number, (replays_there, fault) in enumerate(contents):
        plan.pages.append(Page(_body(replays_there, str(number + 1)), fault))
        for replay in replays_there:
            if replay["id"] in plan.bad or replay["id"] in plan.future:
                plan.page_of.setdefault(replay["id"], number)
    return plan


def _future_games(ahead: datetime, rng: random.Random) -> list[dict]:
    """Three games of one pair, ten minutes apart: three games, whatever their times become."""
    return [
        {
            "id": f"future-{n}",
            "played_at": (ahead + timedelta(minutes=10 * n)).isoformat(),
            "winner": 1 + n % 2,
            "players": [_player(30, rng), _player(31, rng)],
        }
        for n in range(3)
    ]


class HostileFeed(LoopbackFeedServer):
    """Serves a Plan on 127.0.0.1: ``GET /feed?after=<page>`` (``limit`` is ignored)."""

    def __init__(self, plan: Plan, *, drip_seconds: float, page_delay: float = 0.0) -> None:
        self.plan = plan
        self.drip_seconds = drip_seconds
        self.page_delay = page_delay  # per answer, so the pulls last while faults happen
        self.requests = 0
        self.drips: list[DripOutcome] = []
        self._attempts: dict[int, int] = {}
        self._lock = threading.Lock()
        self._start()

    def _answer_for(self, after: str) -> tuple[bytes, str | None]:
        """The page's body and the fault to answer with on this attempt, if any."""
        try:
            number = int(after or 0)
        except ValueError:
            return b'{"error": "after is a page number"}', "http_400"
        if not 0 <= number < len(self.plan.pages):
            return _body([], None), None  # the end: nothing new yet
        page = self.plan.pages[number]
        with self._lock:
            self.requests += 1
            attempt = self._attempts[number] = self._attempts.get(number, 0) + 1
        if page.fault and attempt <= _ATTEMPT_FAULTS[page.fault]:
            return page.body, page.fault
        return page.body, None

    def _drip(self, handler: BaseHTTPRequestHandler, page: int, body: bytes) -> None:
        """Send ``body`` a byte at a time over drip_seconds: every gap is far below any
        read timeout, the whole far above the page deadline."""
        gap = self.drip_seconds / len(body)
        started = time.monotonic()
        try:
            for index in range(len(body)):
                if self._released.wait(gap):
                    return
                handler.wfile.write(body[index : index + 1])
                handler.wfile.flush()
        except OSError:  # the client hung up: it gave up on the page
            self.drips.append(DripOutcome(page, time.monotonic() - started, False))
            return
        self.drips.append(DripOutcome(page, time.monotonic() - started, True))

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        feed = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with contextlib.suppress(OSError):  # the client hung up (a killed worker)
                    self._answer()

            def _answer(self) -> None:
                after = parse_qs(urlsplit(self.path).query).get("after", [""])[0]
                body, fault = feed._answer_for(after)
                if feed._released.wait(feed.page_delay):
                    return
                if fault in ("http_400", "http_500"):
                    self._headers(int(fault[-3:]), len(body))
                    self.wfile.write(body)
                elif fault == "truncated":
                    self._headers(200, len(body))
                    self.wfile.write(body[: len(body) // 2])
                elif fault == "drip":
                    self._headers(200, len(body))
                    feed._drip(self, int(after), body)
                else:
                    self._headers(200, len(body))
                    self.wfile.write(body)

            def _headers(self, status: int, length: int) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(length))
                self.end_headers()
                self.wfile.flush()

            def log_message(self, format: str, *args: object) -> None:
                pass

        return Handler
