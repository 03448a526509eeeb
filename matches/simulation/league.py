"""A deterministic simulated league that plays games in docs/replay-format.md's format.

It stands in for the game's servers: development data, load tests, the live
'simulator' source and the HTTP feed, and it lets rating systems be scored against
the hidden true skills that produced the results.

Determinism and resuming: game ``i`` is played at ``start + i / rate`` (whole seconds)
and is a pure function of the constructor arguments and ``i``. Games are drawn in
chunks of CHUNK_GAMES, each from its own random generator seeded by (seed, chunk),
and the weekly activity tables from (seed, week), so ``seek(i)`` costs at most one
chunk of replay. A live source therefore persists only its constructor arguments and
``position`` (the number of games produced so far).

The model: each player has a base skill ~ Normal(1500, 250), a main character (drawn
from a Zipf-like popularity over the roster) and 0-3 secondaries, each weaker than the
main; characters have small strength offsets. Skill drifts over the weeks: each player
has a trend (some improve, some decline) and a weekly random step, and the drift
reverts slowly toward zero so that a league running for years stays in range; it moves
all of a player's characters together. Four players in ten arrive during the first
season rather than at its start. Activity is a per-player weight that changes every
week; some players take breaks of several weeks, so rating decay shows. About 1% of
players change their name once during the first season. Matchmaking mostly pairs
players of similar (base) skill, as the game's floors do, and games come in sets of
one to five between the same pair, a few minutes apart.

Outcomes follow P(A wins) = 1 / (1 + 10^(-(s_A - s_B + m(X, Y)) / 400)), with s the
skills at the game's week (base plus drift) and m a hidden matchup matrix between A's
character X and B's character Y: m(X, Y) = -m(Y, X), m(X, X) = 0, drawn per pair from
Normal(0, 40) and clipped to +-100. A character's overall strength is in the skills, so
the matrix holds only the matchup-specific part: it is centred so that each character's
offsets average to zero over the characters it meets (weighted by popularity). Ratings,
which absorb a character's average result, then leave exactly m to be estimated.

Patches (`patches`, each a name and the time it goes live) change the matrix at known
times, as a balance patch does: from a patch on, m is the matrix before it plus a shift
per pair drawn from Normal(0, PATCH_SHIFT_DEVIATION), centred and clipped like the
first. Each game then reports the patch in force as its `version` (none before the
first patch); `patch_matchups` and `write_league`'s truth files give every patch's
matrix.

Games last minutes: a player is busy for ``busy_seconds`` after each game (a game's
length, SET_GAP_SECONDS, or less in a league too small to keep its rate otherwise) and
starts no other game meanwhile, so no pair ever meets twice in one second. Within a
chunk this is tracked game by game; across a chunk boundary, where the previous chunk
is not replayed, the last ``busy_seconds`` of a chunk draw only even-indexed players
and the first ``busy_seconds`` of the next only odd-indexed ones, so the two never
share a player.

Planted win-trading rings (`rings`, PlantedRings): small groups of accounts, one
beneficiary and one to three partners drawn at random from the league, who meet far
more often than their activity would have them meet (a share of all encounters) and
let the beneficiary win most of those games; `planted_rings` and `write_league`'s
truth file name them.
"""

from __future__ import annotations

import bisect
import csv
import gzip
import itertools
import json
import math
import random
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from matches.ratings.ledger import Game
from players.seed_roster import SEED_CODES

CHUNK_GAMES = 4096
DEFAULT_RATE = 0.1  # games per second of simulated time: 8,640 a day
DEFAULT_START = datetime(2026, 1, 5, tzinfo=UTC)  # fixed, so that files are reproducible
DEFAULT_DAYS = 90.0  # one season
WEEK_SECONDS = 7 * 86400
SEASON_SECONDS = 90 * 86400
SET_GAP_SECONDS = 150  # about one game's length: the next game of a set comes no sooner
NEIGHBOUR_SHARE = 0.85  # the share of encounters between players close in skill
RENAME_SHARE = 0.01
POPULARITY_EXPONENT = 0.7  # the most played character about 10 times the least
MATCHUP_DEVIATION = 40.0  # of the hidden matchup offsets, in rating points...
MATCHUP_LIMIT = 100.0  # ...clipped to this
PATCH_SHIFT_DEVIATION = 40.0  # how far a patch moves each matchup, in rating points
SEASON_WEEKS = SEASON_SECONDS // WEEK_SECONDS
ARRIVING_SHARE = 0.4  # of players who join during the first season, not at its start
# Weekly drift: drift(w) = DRIFT_PERSISTENCE * drift(w - 1) + trend + Normal(0, DRIFT_STEP),
# with trend ~ Normal(0, DRIFT_TREND): about +-60 points over a season, bounded over years.
DRIFT_PERSISTENCE = 0.97
DRIFT_TREND = 5.0
DRIFT_STEP = 10.0
RETIRED_DRAWS = 1000  # encounters drawn before a league of retired characters gives up

# The seed roster's ids are positions in it, as the league's character indexes are.
_SEED_IDS = {code: index for index, code in enumerate(SEED_CODES)}
_PLATFORMS = ("pc", "ps", "xbox")
_PLATFORM_WEIGHTS = (0.55, 0.35, 0.10)
_SET_LENGTHS = (1, 2, 3, 4, 5)
_SET_LENGTH_WEIGHTS = (0.3, 0.25, 0.25, 0.1, 0.1)
_SECONDARY_COUNTS = (0, 1, 2, 3)
_SECONDARY_COUNT_WEIGHTS = (0.35, 0.35, 0.2, 0.1)
_WORDS = (
    "Sol", "Badguy", "Main", "Dragon", "Install", "Shadow", "Neo", "Zero", "Crimson",
    "Roman", "Cancel", "Gatling", "Dust", "Blitz", "Tiger", "Fox", "Moon", "Star",
    "Salty", "Daisy", "Potato", "Gamer", "Pixel", "Onion", "Panda", "Ninja", "Ronin",
    "Kaiser", "Vortex", "Wakeup", "Reversal", "Frame", "Trap", "Okizeme", "Drifter",
)  # fmt: skip
_UNICODE_WORDS = (
    "ソル使い", "カイ", "ちびっこ", "ゆうき", "사쿠라", "김민수", "Дмитрий", "Łukasz",
    "Zé", "Ægir", "Müller", "Ñandú", "ζήτα", "محمد", "שלום", "李小龙", "Café", "Ōkami",
    "🔥", "★", "♥", "naïve",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class LeagueShape:
    """How a league is made. The defaults are a live game's: a wide spread of skills,
    matchmaking by skill, several characters a player, uneven activity with breaks and
    late arrivals. TEXTBOOK is the league issue 28 measured chances on, where the true
    probabilities gain far more over a coin flip: random pairings, one character each,
    everyone playing evenly from the start."""

    skill_spread: float = 250.0  # the standard deviation of base skills
    neighbour_share: float = NEIGHBOUR_SHARE
    characters: int | None = None  # only the most popular N characters are played
    secondaries: bool = True
    steady: bool = False  # equal activity every week, no breaks, nobody arrives late


TEXTBOOK = LeagueShape(
    skill_spread=130.0, neighbour_share=0.0, characters=8, secondaries=False, steady=True
)


@dataclass(frozen=True, slots=True)
class PlantedRings:
    """Win-trading rings to plant: `count` rings of 2 to `largest` accounts (one
    beneficiary, the others its partners), playing `share` of the league's encounters
    as sets among themselves in which the beneficiary wins with chance `throw`."""

    count: int = 0
    largest: int = 4
    share: float = 0.01
    throw: float = 0.9


@dataclass(frozen=True, slots=True)
class PlantedRing:
    """A planted ring's accounts by player id: the beneficiary and its partners."""

    beneficiary: str
    partners: tuple[str, ...]


@dataclass(slots=True)
class _Player:
    """A simulated player; characters[0] is the main, skills align with characters."""

    id: str
    name: str
    new_name: str  # the name after renamed_at (seconds from the start), if ever
    renamed_at: float
    platform: str
    characters: tuple[int, ...]
    skills: tuple[float, ...]
    activity: float
    break_period: int  # weeks; 0 = never takes a break
    break_length: int
    break_phase: int
    arrival_week: int  # the first week the player plays
    trend: float  # rating points a week, before the drift's pull back toward zero
    floor: int = 0  # set once every player's skill is known

    def name_at(self, offset: float) -> str:
        return self.name if offset < self.renamed_at else self.new_name


@dataclass(slots=True)
class _Set:
    """Games between the same two players on the same characters, a few minutes apart."""

    a: int  # player indices, and the index of each one's character in their characters
    a_character: int
    b: int
    b_character: int
    games_left: int
    last_offset: int  # seconds from the start to the set's latest game
    fixed_chance: float | None = None  # a planted ring's thrown games: P(a wins)


def random_name(rng: random.Random) -> str:
    """Varied names, a fifth of them with non-Latin scripts or symbols."""
    word = rng.choice(_WORDS)
    form = rng.randrange(8)
    if form == 0:
        return word + rng.choice(_WORDS)
    if form == 1:
        return f"{word} {rng.choice(_WORDS)}"
    if form == 2:
        return word.lower()
    if form == 3:
        return f"{word}{rng.randrange(1, 10000)}"
    if form == 4:
        return f"xX_{word}_Xx"
    if form == 5:
        return rng.choice(_UNICODE_WORDS) + rng.choice(("", "", str(rng.randrange(100))))
    if form == 6:
        return f"{word} {rng.choice(_UNICODE_WORDS)}"
    return f"{word}_{rng.choice(_WORDS).lower()}"


@dataclass(frozen=True)
class SimulatedPatch:
    """A patch of a simulated league: its name (also the `version` its games report) and
    when it goes live."""

    name: str
    live_at: datetime


@dataclass(frozen=True)
class PlantedAlternate:
    """A planted alternate account: its player id, the player whose skill it copies,
    and the start of the week from which it plays."""

    player_id: str
    owner_id: str
    plays_from: datetime


class LeagueSimulator:
    """A league of ``players`` players whose games are a pure function of ``seed``."""

    def __init__(
        self,
        players: int,
        seed: int,
        start: datetime = DEFAULT_START,
        *,
        rate: float = DEFAULT_RATE,
        position: int = 0,
        matchup_deviation: float = MATCHUP_DEVIATION,
        skill_drift: bool = True,
        shape: LeagueShape = LeagueShape(),
        patches: Sequence[SimulatedPatch] = (),
        characters: Sequence[str] = SEED_CODES,
        releases: Mapping[str, float] | None = None,
        retirements: Mapping[str, float] | None = None,
        alternates: int = 0,
        rings: PlantedRings = PlantedRings(),
    ) -> None:
        """`alternates`: alternate accounts to plant (`_plant_alternates`; `alternates`
        lists them). `matchup_deviation` 0: a league without matchup effects; `skill_drift` False:
        every player's skill stays fixed (the truth a rating system can reach); `shape`:
        how the league is made (LeagueShape); `patches` change the matchup matrix at their
        times (see above). `characters`: the codes played from the start (character
        index = position); `releases`: characters released mid-league, each code with the
        day (from the start) its first game may be played, added after `characters`. A
        late character is never a player's main: before its day, a player who would pick
        it plays their main instead; from then on, it is played like any secondary.
        `retirements`: characters taken out of the game, each code with the day from which
        no game plays it: a player who would pick it plays their first character still in
        the game, and one left with none plays no more; a set on it ends there.
        `rings`: win-trading rings to plant (see above)."""
        self.skill_drift = skill_drift
        self.shape = shape
        releases = dict(releases or {})
        self.codes: tuple[str, ...] = (
            *characters,
            *(code for code in releases if code not in characters),
        )
        self.character_index = {code: index for index, code in enumerate(self.codes)}
        self.releases = releases
        # Seconds from the start before which each character is not played.
        self._released_at = [releases.get(code, 0.0) * 86400 for code in self.codes]
        self.retirements = dict(retirements or {})
        if unknown := set(self.retirements) - set(self.codes):
            raise ValueError(f"retired characters the league does not play: {sorted(unknown)}")
        # Seconds from the start from which each character is no longer played.
        self._retired_at = [self.retirements.get(code, math.inf) * 86400 for code in self.codes]
        if players < 2:
            raise ValueError("a league needs at least two players")
        if not rate > 0:
            raise ValueError("rate must be positive")
        if start.tzinfo is None:
            raise ValueError("start must be an aware datetime")
        self.seed = seed
        self.rate = rate
        self.start = start
        self._start_ts = start.timestamp()
        self._start_second = math.floor(self._start_ts)
        rng = random.Random(f"{seed}:league")
        ranks = list(range(len(self.codes)))
        rng.shuffle(ranks)  # ranks[c]: how popular character c is, 0 = most
        # Zipf-like: the k-th most popular character is picked in proportion to (k+1)^-s.
        played = len(ranks) if shape.characters is None else shape.characters
        self._character_cum = list(
            itertools.accumulate(
                (rank + 1) ** -POPULARITY_EXPONENT if rank < played else 0.0 for rank in ranks
            )
        )
        self._strength = [rng.gauss(0, 40) for _ in self.codes]
        self._matchups = self._make_matchups(random.Random(f"{seed}:matchups"), matchup_deviation)
        self.patches = sorted(patches, key=lambda patch: patch.live_at)
        if len({patch.name for patch in self.patches}) < len(self.patches):
            raise ValueError("patch names must differ")
        # Per patch in time order, its second of going live and its matrix.
        self._patch_seconds = [math.floor(patch.live_at.timestamp()) for patch in self.patches]
        self._patch_matrices: list[list[list[float]]] = []
        for patch in self.patches:
            base = self._patch_matrices[-1] if self._patch_matrices else self._matchups
            shift = random.Random(f"{seed}:patch:{patch.name}")
            self._patch_matrices.append(self._make_matchups(shift, PATCH_SHIFT_DEVIATION, base))
        self._players = self._make_players(rng, players)
        self.rings = rings
        self._rings = self._plant_rings(random.Random(f"{seed}:rings"), rings)
        by_skill = sorted(range(players), key=lambda p: self._players[p].skills[0])
        self._by_skill = by_skill
        self._rank = [0] * players
        for rank, p in enumerate(by_skill):
            self._rank[p] = rank
            share = rank / players
            self._players[p].floor = 99 if share >= 0.97 else min(10, 1 + int(share * 10))
        self.alternates = self._plant_alternates(alternates)
        self._index = {player.id: index for index, player in enumerate(self._players)}
        # Per week, per player (planted accounts after the others).
        self._drift: list[list[float]] = [[0.0] * len(self._players)]
        self._neighbours = max(3, players // 50)
        # A game's length, shortened when few players play many games a second (at most
        # half of them busy at once) or when a chunk would be too short for its two
        # boundary windows; never under one second.
        chunk_seconds = CHUNK_GAMES / rate - 1
        self.busy_seconds = max(
            1, min(SET_GAP_SECONDS, int(players / (4 * rate)), int(chunk_seconds / 2))
        )
        # Enough interleaved sets that a slot comes round about once per set gap.
        self._slots = max(4, min(64, math.ceil(SET_GAP_SECONDS * rate)))
        self._week = -1
        self._week_weights: list[float] = []
        self._week_drift: list[float] = []
        self._week_cum: list[float] = []
        self.seek(position)

    def _pick_character(self, rng: random.Random) -> int:
        return bisect.bisect(self._character_cum, rng.random() * self._character_cum[-1])

    def _pick_main(self, rng: random.Random) -> int:
        """A character played from the league's start (no late release is a main)."""
        while self._released_at[main := self._pick_character(rng)]:
            pass
        return main

    def _make_matchups(
        self, rng: random.Random, deviation: float, base: list[list[float]] | None = None
    ) -> list[list[float]]:
        """The hidden antisymmetric matrix m[x][y], centred on the popularity (see above):
        `base` (a patch's matrix before it) plus a draw per pair, or the draw alone."""
        count = len(self.codes)
        raw = [[0.0] * count for _ in range(count)]
        for x in range(count):
            for y in range(x + 1, count):
                raw[x][y] = (base[x][y] if base else 0.0) + rng.gauss(0, deviation)
                raw[y][x] = -raw[x][y]
        cum = self._character_cum
        weights = [(b - a) / cum[-1] for a, b in itertools.pairwise([0.0, *cum])]
        # m'(x, y) = m(x, y) - r(x) + r(y) keeps antisymmetry and makes every weighted
        # row mean zero, since the weighted mean of r is zero for an antisymmetric m.
        row_means = [sum(w * m for w, m in zip(weights, row, strict=True)) for row in raw]
        matchups = [[0.0] * count for _ in range(count)]
        for x in range(count):
            for y in range(x + 1, count):
                offset = raw[x][y] - row_means[x] + row_means[y]
                matchups[x][y] = max(-MATCHUP_LIMIT, min(MATCHUP_LIMIT, offset))
                matchups[y][x] = -matchups[x][y]
        return matchups

    def _make_players(self, rng: random.Random, count: int) -> list[_Player]:
        players = []
        ids: set[str] = set()
        for _ in range(count):
            player_id = str(rng.randrange(10**17, 10**18))
            while player_id in ids:
                player_id = str(rng.randrange(10**17, 10**18))
            ids.add(player_id)
            main = self._pick_main(rng)
            characters = [main]
            secondaries = rng.choices(_SECONDARY_COUNTS, _SECONDARY_COUNT_WEIGHTS)[0]
            wanted = 1 + (secondaries if self.shape.secondaries else 0)
            while len(characters) < wanted:
                character = self._pick_character(rng)
                if character not in characters:
                    characters.append(character)
            base = rng.gauss(1500, self.shape.skill_spread)
            main_skill = base + self._strength[main]
            skills = [main_skill] + [
                min(base + self._strength[c] - abs(rng.gauss(150, 100)), main_skill - 25)
                for c in characters[1:]
            ]
            steady = self.shape.steady
            has_breaks = rng.random() < 0.35 and not steady
            period = rng.randint(4, 16) if has_breaks else 0
            renamed = rng.random() < RENAME_SHARE
            players.append(
                _Player(
                    id=player_id,
                    name=random_name(rng),
                    new_name=random_name(rng) if renamed else "",
                    renamed_at=rng.uniform(0, SEASON_SECONDS) if renamed else math.inf,
                    platform=rng.choices(_PLATFORMS, _PLATFORM_WEIGHTS)[0],
                    characters=tuple(characters),
                    skills=tuple(skills),
                    activity=1.0 if steady else rng.lognormvariate(0, 1),
                    break_period=period,
                    break_length=rng.randint(1, period // 2) if has_breaks else 0,
                    break_phase=rng.randrange(period) if has_breaks else 0,
                    arrival_week=rng.randint(1, SEASON_WEEKS)
                    if rng.random() < ARRIVING_SHARE and not steady
                    else 0,
                    trend=rng.gauss(0, DRIFT_TREND),
                )
            )
        return players

    def _plant_alternates(self, count: int) -> list[PlantedAlternate]:
        """Alternate accounts (issue 31): each a fresh id of one of the strongest 1% of
        players, with their characters and skills, arriving in a week of the first half
        of the first season and matched as a newcomer is, by its rating rather than its
        skill: among the players of middling skill. Drawn from their own generator and
        added after everyone else, so the league without them is unchanged."""
        if count <= 0:
            return []
        rng = random.Random(f"{self.seed}:alternates")
        honest = len(self._players)
        strongest = self._by_skill[-max(1, honest // 100) :]
        middle = self._by_skill[honest // 2]
        ids = {player.id for player in self._players}
        planted = []
        for _ in range(count):
            owner = self._players[rng.choice(strongest)]
            alternate_id = str(rng.randrange(10**17, 10**18))
            while alternate_id in ids:
                alternate_id = str(rng.randrange(10**17, 10**18))
            ids.add(alternate_id)
            arrival = rng.randint(1, max(1, SEASON_WEEKS // 2))
            self._players.append(
                _Player(
                    id=alternate_id,
                    name=random_name(rng),
                    new_name="",
                    renamed_at=math.inf,
                    platform=owner.platform,
                    characters=owner.characters,
                    skills=owner.skills,
                    activity=rng.uniform(1.0, 3.0),  # a farmer plays a lot
                    break_period=0,
                    break_length=0,
                    break_phase=0,
                    arrival_week=arrival,
                    trend=owner.trend,
                    floor=self._players[middle].floor,
                )
            )
            self._rank.append(self._rank[middle])
            planted.append(
                PlantedAlternate(alternate_id, owner.id, self.start + timedelta(weeks=arrival))
            )
        return planted

    # -- time and position -------------------------------------------------------

    @property
    def position(self) -> int:
        """How many games have been produced: the index of the next game."""
        return self._position

    def _second(self, index: int) -> int:
        """The epoch second of game ``index``: non-decreasing in index."""
        return math.floor(self._start_ts + index / self.rate)

    def time_of(self, index: int) -> datetime:
        """When game ``index`` is played."""
        return datetime.fromtimestamp(self._second(index), UTC)

    def seek(self, position: int) -> None:
        """Continue from game ``position``, e.g. a count persisted by a live source."""
        if position < 0:
            raise ValueError("position must not be negative")
        self._position = position
        self._rng: random.Random | None = None  # set up again by the next game
        self._open_sets: list[_Set | None] = []
        # Per player, the offset from which they are free again (this chunk's games only).
        self._free_from: list[int] = []
        self._head_end = self._tail_start = 0  # the chunk's boundary windows, as offsets
        self._parity = -1  # the parity of the players the current game may draw; -1: any

    # -- playing -----------------------------------------------------------------

    def _drift_at(self, week: int) -> list[float]:
        """Each player's skill drift during ``week`` (weeks before 0 count as 0)."""
        drift = self._drift
        while self.skill_drift and len(drift) <= week:
            # Each week's steps from their own generator: the same wherever play resumes.
            gauss = random.Random(f"{self.seed}:drift:{len(drift)}").gauss
            drift.append(
                [
                    DRIFT_PERSISTENCE * before + player.trend + gauss(0, DRIFT_STEP)
                    for before, player in zip(drift[-1], self._players, strict=True)
                ]
            )
        return drift[max(min(week, len(drift) - 1), 0)]

    def _load_week(self, week: int) -> None:
        """Weights for picking who plays this week: zero before arriving and on a break."""
        rng = random.Random(f"{self.seed}:week:{week}")
        lognormal = rng.lognormvariate
        weights = []
        for player in self._players:
            factor = lognormal(0, 0.6)  # drawn for everyone, so that the stream is stable
            period = player.break_period
            idle = week < player.arrival_week or (
                period and (week + player.break_phase) % period < player.break_length
            )
            if self.shape.steady:
                factor = 1.0
            weights.append(0.0 if idle else player.activity * factor)
        if not any(weights):  # everyone away at once: a tiny league, nobody rests
            weights = [player.activity for player in self._players]
        self._week = week
        self._week_drift = self._drift_at(week)
        self._week_weights = weights
        self._week_cum = list(itertools.accumulate(weights))

    def _free(self, player: int, offset: int) -> bool:
        """Whether ``player`` may start a game at ``offset``."""
        return self._free_from[player] <= offset and self._parity in (-1, player & 1)

    def _pick_active(self, rng: random.Random, offset: int, other: int = -1) -> int:
        cum = self._week_cum
        for _ in range(8):
            player = bisect.bisect(cum, rng.random() * cum[-1])
            if player != other and self._free(player, offset):
                return player
        # The draws met only busy players: take the first free one from a random place,
        # active this week if possible. Only a league far too small for its rate has
        # none, and then plays someone busy rather than skip a game.
        count = len(cum)
        first = rng.randrange(count)
        weights = self._week_weights
        fallback = -1
        for step in range(count):
            player = (first + step) % count
            if player != other and self._free(player, offset):
                if weights[player] > 0:
                    return player
                if fallback < 0:
                    fallback = player
        if fallback >= 0:
            return fallback
        return (other + 1 + rng.randrange(count - 1)) % count if other >= 0 else first

    def _pick_opponent(self, rng: random.Random, player: int, offset: int) -> int:
        if rng.random() < self.shape.neighbour_share:
            rank = self._rank[player]
            for _ in range(10):
                other_rank = rank + rng.randint(-self._neighbours, self._neighbours)
                if 0 <= other_rank < len(self._by_skill) and other_rank != rank:
                    other = self._by_skill[other_rank]
                    if self._week_weights[other] > 0 and self._free(other, offset):
                        return other
        return self._pick_active(rng, offset, player)

    def _choose_character(self, rng: random.Random, player: _Player, offset: int) -> int:
        """The slot of the character `player` plays a set on; -1 when every character of
        theirs is retired."""
        if len(player.characters) == 1 or rng.random() < 0.75:
            slot = 0
        else:
            slot = rng.randrange(1, len(player.characters))
            slot = 0 if self._released_at[player.characters[slot]] > offset else slot
        if self._retired_at[player.characters[slot]] > offset:
            return slot
        return next(
            (
                other
                for other, character in enumerate(player.characters)
                if self._released_at[character] <= offset < self._retired_at[character]
            ),
            -1,
        )

    def _retired(self, game_set: _Set, offset: int) -> bool:
        """Whether either side's character of `game_set` is retired at `offset`."""
        a = self._players[game_set.a].characters[game_set.a_character]
        b = self._players[game_set.b].characters[game_set.b_character]
        return min(self._retired_at[a], self._retired_at[b]) <= offset

    def _plant_rings(self, rng: random.Random, rings: PlantedRings) -> list[tuple[int, ...]]:
        """Each ring's player indexes, beneficiary first; no player in two rings. Rings
        are drawn among the players there from the start, and they meet by arrangement,
        breaks or not."""
        present = [p for p, player in enumerate(self._players) if player.arrival_week == 0]
        if rings.count * rings.largest > len(present):
            raise ValueError("too many rings for the league's players")
        members = rng.sample(present, rings.count * rings.largest)
        planted = []
        for _ in range(rings.count):
            ring_size = rng.randint(2, rings.largest)
            planted.append(tuple(members[:ring_size]))
            del members[:ring_size]
        return planted

    def planted_rings(self) -> list[PlantedRing]:
        """The planted win-trading rings (the truth a detector is scored against)."""
        ids = [player.id for player in self._players]
        return [PlantedRing(ids[ring[0]], tuple(ids[p] for p in ring[1:])) for ring in self._rings]

    def _ring_encounter(self, rng: random.Random, offset: int) -> _Set | None:
        """A set between a ring's beneficiary and one of its partners, thrown to the
        beneficiary; None when neither this encounter nor its players are free for it."""
        if rng.random() >= self.rings.share:
            return None
        ring = rng.choice(self._rings)
        beneficiary, partner = ring[0], rng.choice(ring[1:])
        if not (self._free(beneficiary, offset) and self._free(partner, offset)):
            return None
        return self._new_set(rng, beneficiary, partner, offset, fixed_chance=self.rings.throw)

    def _new_set(
        self, rng: random.Random, a: int, b: int, offset: int, fixed_chance: float | None = None
    ) -> _Set | None:
        """A set of players `a` and `b` on characters they choose now; None when a side
        has every character retired."""
        a_character = self._choose_character(rng, self._players[a], offset)
        b_character = self._choose_character(rng, self._players[b], offset)
        if a_character < 0 or b_character < 0:
            return None
        return _Set(
            a=a,
            a_character=a_character,
            b=b,
            b_character=b_character,
            games_left=rng.choices(_SET_LENGTHS, _SET_LENGTH_WEIGHTS)[0],
            last_offset=offset,
            fixed_chance=fixed_chance,
        )

    def _encounter(self, rng: random.Random, offset: int) -> _Set:
        if self._rings and (ring_set := self._ring_encounter(rng, offset)) is not None:
            return ring_set
        # Only a league with retired characters draws again: players left with none.
        for _ in range(RETIRED_DRAWS):
            a = self._pick_active(rng, offset)
            b = self._pick_opponent(rng, a, offset)
            if (game_set := self._new_set(rng, a, b, offset)) is not None:
                return game_set
        raise ValueError("hardly any player has a character left in the game")

    def _play(self, index: int) -> dict:
        if self._rng is None or index % CHUNK_GAMES == 0:
            chunk_start = index - index % CHUNK_GAMES
            self._rng = random.Random(f"{self.seed}:games:{chunk_start // CHUNK_GAMES}")
            self._open_sets = [None] * self._slots
            self._free_from = [0] * len(self._players)
            chunk_end = chunk_start + CHUNK_GAMES
            self._head_end = self._second(chunk_start) - self._start_second + self.busy_seconds
            self._tail_start = self._second(chunk_end) - self._start_second - self.busy_seconds
            for skipped in range(chunk_start, index):
                self._play_game(skipped)
        return self._play_game(index)

    def _patch_at(self, second: int) -> int:
        """The index of the patch in force at epoch `second`; -1 before the first."""
        return bisect.bisect_right(self._patch_seconds, second) - 1

    def _matrix_at(self, second: int) -> list[list[float]]:
        patch = self._patch_at(second)
        return self._matchups if patch < 0 else self._patch_matrices[patch]

    def _expected(
        self,
        a: int,
        a_slot: int,
        b: int,
        b_slot: int,
        drift: list[float],
        matchups: list[list[float]],
    ) -> float:
        """P(player a on their character a_slot beats player b on b_slot), given the
        week's drift and the matrix in force: the model in the module's docstring."""
        first, second = self._players[a], self._players[b]
        edge = (
            first.skills[a_slot] + drift[a] - second.skills[b_slot] - drift[b]
            + matchups[first.characters[a_slot]][second.characters[b_slot]]
        )  # fmt: skip
        return 1 / (1 + 10 ** (-edge / 400))

    def _play_game(self, index: int) -> dict:
        rng = self._rng
        second = self._second(index)
        offset = second - self._start_second
        # Odd players only at the chunk's head, even ones only at its tail (see above).
        self._parity = 1 if offset < self._head_end else 0 if offset > self._tail_start else -1
        week = offset // WEEK_SECONDS
        if week != self._week:
            self._load_week(week)
        slot = rng.randrange(self._slots)
        current = self._open_sets[slot]
        if current is not None and self._retired(current, offset):
            current = self._open_sets[slot] = None  # a character retired: its set ends
        if current is None:
            current = self._encounter(rng, offset)
            self._open_sets[slot] = current
        elif (
            offset - current.last_offset >= SET_GAP_SECONDS
            and self._free(current.a, offset)
            and self._free(current.b, offset)
        ):
            current.last_offset = offset
        else:  # the set in this slot is between games: this is a one-off game
            current = self._encounter(rng, offset)
            current.games_left = 1
        current.games_left -= 1
        if current.games_left == 0 and self._open_sets[slot] is current:
            self._open_sets[slot] = None
        free_from = offset + self.busy_seconds
        self._free_from[current.a] = self._free_from[current.b] = free_from
        a = self._players[current.a]
        b = self._players[current.b]
        a_slot = current.a_character
        b_slot = current.b_character
        a_character, b_character = a.characters[a_slot], b.characters[b_slot]
        patch = self._patch_at(second)
        matchups = self._matchups if patch < 0 else self._patch_matrices[patch]
        expected = (
            self._expected(current.a, a_slot, current.b, b_slot, self._week_drift, matchups)
            if current.fixed_chance is None
            else current.fixed_chance
        )
        winner = 1 if rng.random() < expected else 2
        played_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(second))
        game = {
            "id": f"sim-{self.seed}-{index}",
            "played_at": played_at,
            "floor": a.floor,
            "winner": winner,
            "players": [
                {"id": a.id, "name": a.name_at(offset), "character": self.codes[a_character],
                 "platform": a.platform},
                {"id": b.id, "name": b.name_at(offset), "character": self.codes[b_character],
                 "platform": b.platform},
            ],
        }  # fmt: skip
        if patch >= 0:
            game["version"] = self.patches[patch].name
        return game

    def _next(self) -> dict:
        game = self._play(self._position)
        self._position += 1
        return game

    def games(self, count: int) -> Iterator[dict]:
        """The next ``count`` games, in time order (lazily; ``position`` follows)."""
        for _ in range(count):
            yield self._next()

    def games_until(self, moment: datetime, limit: int | None = None) -> list[dict]:
        """The games played after ``position`` up to ``moment``, at most ``limit``:
        the live mode, called again with a later moment to continue."""
        end = moment.timestamp()
        games = []
        while (limit is None or len(games) < limit) and self._second(self._position) <= end:
            games.append(self._next())
        return games

    def _week_of(self, moment: datetime) -> int:
        return math.floor((moment.timestamp() - self._start_second) / WEEK_SECONDS)

    def true_skills(self, at: datetime | None = None) -> dict[tuple[str, int], float]:
        """The hidden skill of each (player id, character id) the league plays, as it
        stands at ``at`` (by default when game ``position``, the next one, is played);
        players who have not arrived yet are listed with the skill they will start at."""
        drift = self._drift_at(self._week_of(at or self.time_of(self._position)))
        return {
            (player.id, character): skill + player_drift
            for player, player_drift in zip(self._players, drift, strict=True)
            for character, skill in zip(player.characters, player.skills, strict=True)
        }

    def true_matchups(self, at: datetime | None = None) -> dict[tuple[int, int], float]:
        """The hidden offset m(X, Y) in rating points of each pair of different
        character ids: P(X side wins) gains it on top of the skills; with patches, as it
        stands at `at` (by default when game ``position``, the next one, is played)."""
        moment = at or self.time_of(self._position)
        return _pairs(self._matrix_at(math.floor(moment.timestamp())))

    def patch_matchups(self) -> dict[str, dict[tuple[int, int], float]]:
        """Each patch's hidden matrix, by patch name (as `true_matchups` gives one)."""
        return {
            patch.name: _pairs(matrix)
            for patch, matrix in zip(self.patches, self._patch_matrices, strict=True)
        }

    def win_probability(self, game: dict) -> float:
        """The true P(first player wins) of a game this league played."""
        first, second = game["players"]
        a, b = self._index[first["id"]], self._index[second["id"]]
        a_slot = self._players[a].characters.index(self.character_index[first["character"]])
        b_slot = self._players[b].characters.index(self.character_index[second["character"]])
        moment = datetime.fromisoformat(game["played_at"])
        matchups = self._matrix_at(math.floor(moment.timestamp()))
        return self._expected(a, a_slot, b, b_slot, self._drift_at(self._week_of(moment)), matchups)


def _pairs(matrix: list[list[float]]) -> dict[tuple[int, int], float]:
    count = len(matrix)
    return {(x, y): matrix[x][y] for x in range(count) for y in range(count) if x != y}


# The `--release` option of the commands that play a league (simulate_league,
# serve_replay_feed), each value read by parse_release.
RELEASE_OPTION = {
    "action": "append",
    "default": [],
    "metavar": "CODE=DAYS",
    "help": "a character released DAYS after the start (docs/roster.md#the-simulator); repeatable",
}


# The `--retire` option of the same commands: a character out of the game from a day on.
RETIRE_OPTION = {
    "action": "append",
    "default": [],
    "metavar": "CODE=DAYS",
    "help": "a character retired DAYS after the start: no game plays it from then on "
    "(docs/roster.md#the-simulator); repeatable",
}


def parse_release(text: str) -> tuple[str, float]:
    """A command line's `CODE=DAYS` (a character released DAYS into the league), checked."""
    code, _, days = text.partition("=")
    try:
        moment = float(days)
    except ValueError:
        moment = -1.0
    if not (code.isalnum() and code.isupper() and len(code) <= 4) or not moment >= 0:
        raise ValueError(f"a release is CODE=DAYS, e.g. XX=30 (not {text!r})")
    return code, moment


def league_seasons(start: datetime, days: float, season_days: int) -> list[tuple[str, date, date]]:
    """Seasons of `season_days` whole UTC days one after another from the league's first
    day until one covers its last: (name, first day, last day included)."""
    if season_days < 1:
        raise ValueError("a season lasts at least one day")
    first = start.astimezone(UTC).date()
    last = (start + timedelta(days=days)).astimezone(UTC).date()
    seasons = []
    while first <= last:
        end = first + timedelta(days=season_days - 1)
        seasons.append((f"season-{len(seasons) + 1}", first, end))
        first = end + timedelta(days=1)
    return seasons


def write_league(
    path: str | Path,
    players: int,
    games: int,
    seed: int,
    *,
    start: datetime = DEFAULT_START,
    days: float = DEFAULT_DAYS,
    patches: Sequence[SimulatedPatch] = (),
    releases: Mapping[str, float] | None = None,
    retirements: Mapping[str, float] | None = None,
    season_days: int | None = None,
    alternates: int = 0,
    rings: PlantedRings = PlantedRings(),
) -> int:
    """Write ``games`` games spread over ``days`` to .jsonl or .jsonl.gz, the hidden
    skills as they stand after the last game to ``<path>.skills.csv``, the hidden
    matchup offsets to ``<path>.matchups.csv`` (character, opponent, m(character,
    opponent); the matrix in force after the last game); with ``patches``, every
    patch's to ``<path>.patches.csv`` (patch, live_at, character, opponent, offset; the
    matrix before the first patch as patch "" from the start); with ``releases``
    (LeagueSimulator), when each late character came to ``<path>.releases.csv``
    (character, released_at); with ``retirements``, when each retired character left
    to ``<path>.retirements.csv`` (character, retired_at); with `season_days`, the
    league's seasons to ``<path>.seasons.csv`` (name, start, end: `league_seasons`); with
    `alternates` (LeagueSimulator), the planted accounts to ``<path>.alternates.csv``
    (player_id, owner_id, plays_from); with planted `rings`, their accounts to ``<path>.rings.csv``
    (ring, player_id, role: beneficiary or partner); the same arguments give
    byte-identical files."""
    path = Path(path)
    if not path.name.endswith((".jsonl", ".jsonl.gz")):
        raise ValueError(f"league files are .jsonl or .jsonl.gz, not {path.name!r}")
    rate = max(games, 1) / (days * 86400)
    league = LeagueSimulator(
        players,
        seed,
        start,
        rate=rate,
        patches=patches,
        releases=releases,
        retirements=retirements,
        alternates=alternates,
        rings=rings,
    )
    codes = league.codes
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    with path.open("wb") as raw:
        # mtime=0 and no file name in the header keep gzipped output reproducible.
        stream = (
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=6)
            if path.name.endswith(".gz")
            else raw
        )
        with stream:
            for game in league.games(games):
                stream.write(dumps(game).encode() + b"\n")
    with open(f"{path}.skills.csv", "w", encoding="utf-8", newline="") as skills_file:
        writer = csv.writer(skills_file, lineterminator="\n")
        writer.writerow(("player_id", "character", "skill"))
        for (player_id, character), skill in league.true_skills().items():
            writer.writerow((player_id, codes[character], f"{skill:.2f}"))
    with open(f"{path}.matchups.csv", "w", encoding="utf-8", newline="") as matchups_file:
        writer = csv.writer(matchups_file, lineterminator="\n")
        writer.writerow(("character", "opponent", "offset"))
        for (character, opponent), offset in league.true_matchups().items():
            writer.writerow((codes[character], codes[opponent], f"{offset:.2f}"))
    if league.patches:
        with open(f"{path}.patches.csv", "w", encoding="utf-8", newline="") as patches_file:
            writer = csv.writer(patches_file, lineterminator="\n")
            writer.writerow(("patch", "live_at", "character", "opponent", "offset"))
            # The matrix before the first patch too, as patch "" from the league's start.
            matrices = {"": (league.start, _pairs(league._matchups))}
            for patch in league.patches:
                matrices[patch.name] = (patch.live_at, league.patch_matchups()[patch.name])
            for name, (live_at, matrix) in matrices.items():
                for (character, opponent), offset in matrix.items():
                    writer.writerow(
                        (name, live_at.isoformat(), codes[character], codes[opponent],
                         f"{offset:.2f}")
                    )  # fmt: skip
    if league.releases:
        with open(f"{path}.releases.csv", "w", encoding="utf-8", newline="") as releases_file:
            writer = csv.writer(releases_file, lineterminator="\n")
            writer.writerow(("character", "released_at"))
            for code, day in league.releases.items():
                moment = datetime.fromtimestamp(start.timestamp() + day * 86400, UTC)
                writer.writerow((code, moment.isoformat()))
    if league.retirements:
        with open(f"{path}.retirements.csv", "w", encoding="utf-8", newline="") as retired_file:
            writer = csv.writer(retired_file, lineterminator="\n")
            writer.writerow(("character", "retired_at"))
            for code, day in league.retirements.items():
                moment = datetime.fromtimestamp(start.timestamp() + day * 86400, UTC)
                writer.writerow((code, moment.isoformat()))
    if season_days is not None:
        with open(f"{path}.seasons.csv", "w", encoding="utf-8", newline="") as seasons_file:
            writer = csv.writer(seasons_file, lineterminator="\n")
            writer.writerow(("name", "start", "end"))
            for name, first, last in league_seasons(start, days, season_days):
                writer.writerow((name, first.isoformat(), last.isoformat()))
    if league.alternates:
        _write_alternates(f"{path}.alternates.csv", league.alternates)
    if rings.count:
        _write_rings(f"{path}.rings.csv", league.planted_rings())
    return games


def _write_alternates(path: str | Path, alternates: Sequence[PlantedAlternate]) -> None:
    """The truth of planted alternate accounts: player_id, owner_id, plays_from."""
    with open(path, "w", encoding="utf-8", newline="") as alternates_file:
        writer = csv.writer(alternates_file, lineterminator="\n")
        writer.writerow(("player_id", "owner_id", "plays_from"))
        for alternate in alternates:
            writer.writerow(
                (alternate.player_id, alternate.owner_id, alternate.plays_from.isoformat())
            )


def _write_rings(path: str, rings: Sequence[PlantedRing]) -> None:
    """The planted rings' truth file: one row per account."""
    with open(path, "w", encoding="utf-8", newline="") as rings_file:
        writer = csv.writer(rings_file, lineterminator="\n")
        writer.writerow(("ring", "player_id", "role"))
        for number, ring in enumerate(rings, start=1):
            writer.writerow((number, ring.beneficiary, "beneficiary"))
            for partner in ring.partners:
                writer.writerow((number, partner, "partner"))


def as_game(number: int, replay: dict, character_ids: Mapping[str, int] = _SEED_IDS) -> Game:
    """A simulated replay as the rating ledger's Game `number` (side A: the first player);
    characters by id (by default the seed roster's, which a league without late
    characters plays)."""
    first, second = replay["players"]
    return Game(
        number,
        datetime.fromisoformat(replay["played_at"]).timestamp(),
        first["id"],
        character_ids[first["character"]],
        second["id"],
        character_ids[second["character"]],
        replay["winner"] == 1,
    )
