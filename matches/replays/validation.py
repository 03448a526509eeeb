"""Validation of one replay object in the shared format (docs/replay-format.md).

Every source (file import, HTTP feed, simulator) ends here, so the rules live in one
place. The checks are hand-written rather than schema-driven because ingestion runs
at hundreds of thousands of replays a second and each reason must be short and
specific enough for an operator to act on it from the RejectedReplay table.

Names: control characters (Unicode category Cc, NUL included), line and paragraph
separators and lone surrogates are rejected. Format characters (category Cf: RTL and
LTR marks, zero-width joiners) are accepted: real names use them (Arabic and Hebrew
names, emoji sequences) and pages escape every name on output anyway.
"""

from __future__ import annotations

import re
import reprlib
import unicodedata
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

MAX_REPLAY_ID_LENGTH = 128
MAX_PLAYER_ID_LENGTH = 32
MAX_NAME_LENGTH = 64
MAX_VERSION_LENGTH = 64
PLATFORMS = frozenset({"pc", "ps", "xbox"})
FLOORS = frozenset({*range(1, 11), 99})
# Times outside this window are typos or unit mistakes (milliseconds), not games.
EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
LATEST = datetime(2100, 1, 1, tzinfo=UTC)
_EARLIEST_EPOCH = int(EARLIEST.timestamp())
_LATEST_EPOCH = int(LATEST.timestamp())
_REJECTED_NAME_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})


# The roster the rules read: each character code with its id (players.selectors.roster
# gives it; validation itself reads no database, as a child process runs it).
CharacterCodes = Mapping[str, int]
# A code as players.models.CHARACTER_CODE_PATTERN spells it: a replay naming one that the
# roster lacks waits for that character rather than being rejected for good.
_CHARACTER_CODE = re.compile(r"[A-Z][A-Z0-9]{0,3}")


class InvalidReplay(ValueError):
    """A replay that breaks a rule of docs/replay-format.md; ``reason`` is short and human."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class UnknownCharacter(InvalidReplay):
    """A replay otherwise valid so far that names a well-formed code the roster lacks: a
    character released after the roster was last edited. Kept as waiting for ``code``."""

    def __init__(self, code: str) -> None:
        super().__init__(f"unknown character {code!r}")
        self.code = code


# NamedTuples rather than frozen dataclasses: an import builds three per replay, and
# a tuple is several times cheaper to build.
class ReplayPlayer(NamedTuple):
    id: str
    name: str
    character_id: int
    platform: str  # "pc", "ps", "xbox", or "" when the source did not say


class ParsedReplay(NamedTuple):
    source_replay_id: str
    played_at: datetime  # aware, UTC
    # The time the source reported when it lay in the future and played_at is the
    # ingestion time instead; None when played_at is the reported time.
    reported_at: datetime | None
    floor: int | None
    players: tuple[ReplayPlayer, ReplayPlayer]
    winner: int  # 0 or 1: index into players
    version: str = ""  # the game's build or patch string; "" when the source did not say


# A valid replay as one flat tuple, the cheapest record to build and to pickle, with
# times as integer microseconds since the Unix epoch (UTC), the players as the source
# gave them: (source_replay_id, played_at, reported_at or None, floor or None,
# p1 id, p1 name, p1 character id, p1 platform, p2 id, ..., winner 0 or 1, version).
FlatReplay = tuple[
    str, int, int | None, int | None, str, str, int, str, str, str, int, str, int, str
]
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def epoch_microseconds(moment: datetime) -> int:
    """An aware datetime as integer microseconds since the Unix epoch, exactly."""
    return (moment - _EPOCH) // _MICROSECOND


def from_epoch_microseconds(value: int) -> datetime:
    return _EPOCH + timedelta(microseconds=value)


# reprlib bounds the work as well as the text: a value nested thousands deep would make
# repr() raise RecursionError.
_REPR = reprlib.Repr()
_REPR.maxlevel = 3


def _show(value: object) -> str:
    """A bounded repr for reasons, so hostile input cannot bloat the rejection log."""
    text = _REPR.repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_int(value: object) -> bool:
    # bool is an int subclass, and JSON true must not pass for 1.
    return type(value) is int


def _replay_id(obj: dict) -> str:
    value = obj.get("id")
    if value is None:
        raise InvalidReplay("missing id")
    if _is_int(value):
        value = str(value)
    elif not isinstance(value, str):
        raise InvalidReplay(f"id must be a string or integer, not {type(value).__name__}")
    value = value.strip()
    if not value:
        raise InvalidReplay("id is empty")
    if len(value) > MAX_REPLAY_ID_LENGTH:
        raise InvalidReplay(f"id longer than {MAX_REPLAY_ID_LENGTH} characters")
    if not value.isprintable():
        raise InvalidReplay("id holds unprintable characters")
    return value


def _played_at(obj: dict) -> datetime:
    value = obj.get("played_at")
    if value is None:
        raise InvalidReplay("missing played_at")
    if _is_int(value):
        if not _EARLIEST_EPOCH <= value < _LATEST_EPOCH:
            raise InvalidReplay(f"played_at out of range: {_show(value)}")
        return datetime.fromtimestamp(value, UTC)
    if not isinstance(value, str):
        raise InvalidReplay("played_at must be ISO 8601 text or integer epoch seconds")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise InvalidReplay(f"played_at is not ISO 8601: {_show(value)}") from None
    if moment.tzinfo is None:
        raise InvalidReplay("played_at has no UTC offset")
    # An offset such as +14:00 can push a year-1 or year-9999 time past datetime's range.
    try:
        moment = moment.astimezone(UTC)
    except OverflowError:
        raise InvalidReplay(f"played_at out of range: {_show(value)}") from None
    if not EARLIEST <= moment < LATEST:
        raise InvalidReplay(f"played_at out of range: {_show(value)}")
    return moment


def _version(obj: dict) -> str:
    value = obj.get("version")
    if value is None:
        return ""
    if _is_int(value):
        value = str(value)
    elif not isinstance(value, str):
        raise InvalidReplay(f"version must be a string, not {type(value).__name__}")
    value = value.strip()
    if len(value) > MAX_VERSION_LENGTH:
        raise InvalidReplay(f"version longer than {MAX_VERSION_LENGTH} characters")
    if not value.isprintable():
        raise InvalidReplay("version holds unprintable characters")
    return value


def _floor(obj: dict) -> int | None:
    value = obj.get("floor")
    if value is None:
        return None
    if not _is_int(value) or value not in FLOORS:
        raise InvalidReplay(f"floor must be 1-10 or 99, not {_show(value)}")
    return value


def _winner(obj: dict) -> int:
    value = obj.get("winner")
    if value is None:
        raise InvalidReplay("missing winner")
    if not _is_int(value) or value not in (1, 2):
        raise InvalidReplay("winner must be 1 or 2")
    return value - 1


def _player_id(value: object, side: int) -> str:
    if _is_int(value) and value >= 0:
        value = str(value)
    if value is None or value == "":
        raise InvalidReplay(f"player {side}: missing id")
    if not isinstance(value, str) or not (value.isascii() and value.isdigit()):
        raise InvalidReplay(f"player {side}: id must be digits, not {_show(value)}")
    if len(value) > MAX_PLAYER_ID_LENGTH:
        raise InvalidReplay(f"player {side}: id longer than {MAX_PLAYER_ID_LENGTH} digits")
    return canonical_player_id(value)


def canonical_player_id(digits: str) -> str:
    """A player id in its one form, the decimal number without leading zeros: the game
    writes `0089` and `89` for one player (issue 35)."""
    return digits.lstrip("0") or "0"


def _name(value: object, side: int) -> str:
    if value is None:
        raise InvalidReplay(f"player {side}: missing name")
    if not isinstance(value, str):
        raise InvalidReplay(f"player {side}: name must be a string")
    name = value.strip()
    if not name:
        raise InvalidReplay(f"player {side}: name is empty")
    if len(name) > MAX_NAME_LENGTH:
        raise InvalidReplay(f"player {side}: name longer than {MAX_NAME_LENGTH} characters")
    # isprintable() is a fast C check that passes nearly every real name; only names it
    # fails (spaces other than U+0020, format marks, private use...) are looked at closely.
    if not value.isprintable():
        for char in value:
            category = unicodedata.category(char)
            if category in _REJECTED_NAME_CATEGORIES:
                what = "invalid unicode" if category == "Cs" else "control characters"
                raise InvalidReplay(f"player {side}: name holds {what}")
    return name


def _character(value: object, side: int, codes: CharacterCodes) -> int:
    character = codes.get(value) if type(value) is str else None
    if character is not None:  # the usual case: a code exactly as the roster spells it
        return character
    if isinstance(value, str):
        code = value.strip().upper()
        character = codes.get(code)
        if character is not None:
            return character
        if _CHARACTER_CODE.fullmatch(code):
            raise UnknownCharacter(code)
    elif _is_int(value) and value in codes.values():
        return value
    if value is None:
        raise InvalidReplay(f"player {side}: missing character")
    raise InvalidReplay(f"unknown character {_show(value)}")


def _platform(value: object, side: int) -> str:
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        platform = value.lower()
        if platform in PLATFORMS:
            return platform
    raise InvalidReplay(f"player {side}: unknown platform {_show(value)}")


def _player(value: object, side: int, codes: CharacterCodes) -> ReplayPlayer:
    if not isinstance(value, dict):
        raise InvalidReplay(f"player {side} is not an object")
    get = value.get
    player_id, name = _player_id(get("id"), side), _name(get("name"), side)
    try:
        character = _character(get("character"), side, codes)
    except UnknownCharacter:
        _platform(get("platform"), side)  # waiting replays pass every other rule
        raise
    return ReplayPlayer(player_id, name, character, _platform(get("platform"), side))


def parse_replay(
    obj: object,
    *,
    now: datetime,
    characters: CharacterCodes,
    max_clock_skew: timedelta = timedelta(minutes=5),
) -> ParsedReplay:
    """Check one decoded replay object against the roster ``characters`` and return it
    typed, or raise InvalidReplay (UnknownCharacter for a code the roster lacks, raised
    only once every other rule has passed, so that a waiting replay is otherwise good).

    A time further in the future than ``max_clock_skew`` past ``now`` is replaced by
    ``now`` and kept as ``reported_at``: the game's servers have been seen to report
    future times, and dropping those games would lose real results.
    """
    if not isinstance(obj, dict):
        raise InvalidReplay("replay is not an object")
    replay_id = _replay_id(obj)
    played_at = _played_at(obj)
    floor = _floor(obj)
    version = _version(obj)
    winner = _winner(obj)
    players = obj.get("players")
    if not isinstance(players, list | tuple) or len(players) != 2:
        raise InvalidReplay("players must be a list of two")
    try:
        first = _player(players[0], 1, characters)
    except UnknownCharacter as unknown:
        first, waiting = None, unknown
    else:
        waiting = None
    try:
        second = _player(players[1], 2, characters)
    except UnknownCharacter as unknown:
        second, waiting = None, waiting or unknown
    if first is not None and second is not None and first.id == second.id:
        raise InvalidReplay("player plays against themself")
    if waiting is not None:
        raise waiting
    future = played_at > now + max_clock_skew
    return ParsedReplay(
        source_replay_id=replay_id,
        played_at=now.astimezone(UTC) if future else played_at,
        reported_at=played_at if future else None,
        floor=floor,
        players=(first, second),
        winner=winner,
        version=version,
    )


def flat_replay(replay: ParsedReplay) -> FlatReplay:
    first, second = replay.players
    reported = replay.reported_at
    return (
        replay.source_replay_id,
        epoch_microseconds(replay.played_at),
        None if reported is None else epoch_microseconds(reported),
        replay.floor,
        *first,
        *second,
        replay.winner,
        replay.version,
    )


# The CSV cells that `plain_csv_replay` takes as they are, with their values.
_PLAIN_FLOORS: dict[str, int | None] = {"": None} | {str(floor): floor for floor in FLOORS}
_PLAIN_WINNERS = {"1": 0, "2": 1}
_PLAIN_PLATFORMS = {"": "", **{platform: platform for platform in PLATFORMS}}


def plain_csv_replay(
    cells: list[str], latest: int, characters: CharacterCodes
) -> FlatReplay | None:
    """The replay of a CSV record's cells (twelve, or thirteen with a version) when it
    plainly passes every rule, else None: then `parse_replay` of its payload
    (`readers.csv_payload`) decides, and says why it is rejected. Takes what nearly every
    real file holds (epoch seconds, roster codes, cells without padding) and builds no
    dict and no datetime on the way, which makes it several times cheaper than the
    general path; for anything else (text times, character ids, padded cells, a time
    after ``latest``, in epoch microseconds) it answers None. Whatever it accepts,
    `parse_replay` accepts alike.
    """
    (replay_id, played_at, floor, winner,
     p1_id, p1_name, p1_character, p1_platform,
     p2_id, p2_name, p2_character, p2_platform) = cells[:12]  # fmt: skip
    version = cells[12] if len(cells) > 12 else ""
    replay_id = replay_id.strip()
    name1 = p1_name.strip()
    name2 = p2_name.strip()
    character1 = characters.get(p1_character)
    character2 = characters.get(p2_character)
    if not (
        replay_id
        and len(replay_id) <= MAX_REPLAY_ID_LENGTH
        and replay_id.isprintable()
        and played_at.isdigit()
        and played_at.isascii()
        and floor in _PLAIN_FLOORS
        and winner in _PLAIN_WINNERS
        and p1_id.isdigit()
        and p1_id.isascii()
        # A leading zero: the full validation writes the id in its one form.
        and p1_id[0] != "0"
        and p2_id[0:1] != "0"
        and len(p1_id) <= MAX_PLAYER_ID_LENGTH
        and p2_id.isdigit()
        and p2_id.isascii()
        and len(p2_id) <= MAX_PLAYER_ID_LENGTH
        and p1_id != p2_id
        and name1
        and len(name1) <= MAX_NAME_LENGTH
        and p1_name.isprintable()
        and name2
        and len(name2) <= MAX_NAME_LENGTH
        and p2_name.isprintable()
        and character1 is not None
        and character2 is not None
        and p1_platform in _PLAIN_PLATFORMS
        and p2_platform in _PLAIN_PLATFORMS
        and len(version) <= MAX_VERSION_LENGTH
        and version.isprintable()
        and version == version.strip()
    ):
        return None
    seconds = int(played_at)
    moment = seconds * 1_000_000
    if not _EARLIEST_EPOCH <= seconds < _LATEST_EPOCH or moment > latest:
        return None
    return (
        replay_id, moment, None, _PLAIN_FLOORS[floor],
        p1_id, name1, character1, p1_platform,
        p2_id, name2, character2, p2_platform,
        _PLAIN_WINNERS[winner], version,
    )  # fmt: skip
