"""The replay rules of docs/replay-format.md#validation-and-rejections, one reason per rule."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from functools import partial

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matches.replays import InvalidReplay, ParsedReplay, ReplayPlayer
from matches.replays import parse_replay as _parse_replay
from players.seed_roster import SEED_IDS

parse_replay = partial(_parse_replay, characters=SEED_IDS)

NOW = datetime(2026, 11, 21, 15, 0, tzinfo=UTC)

VALID = {
    "id": "r-000001",
    "played_at": "2026-11-21T14:03:11Z",
    "floor": 10,
    "winner": 1,
    "players": [
        {
            "id": "230129212655563979",
            "name": "Sol Badguy Main",
            "character": "SO",
            "platform": "pc",
        },
        {"id": "210611080522104011", "name": "kyo", "character": "KY", "platform": "ps"},
    ],
}


def replay(**changes: object) -> dict:
    """VALID with top-level fields replaced; a value of ... removes the field."""
    result = copy.deepcopy(VALID)
    for key, value in changes.items():
        if value is ...:
            del result[key]
        else:
            result[key] = value
    return result


def with_player(side: int, **changes: object) -> dict:
    """VALID with fields of player ``side`` (1 or 2) replaced; ... removes the field."""
    result = copy.deepcopy(VALID)
    player = result["players"][side - 1]
    for key, value in changes.items():
        if value is ...:
            del player[key]
        else:
            player[key] = value
    return result


def reason_for(obj: object) -> str:
    with pytest.raises(InvalidReplay) as caught:
        parse_replay(obj, now=NOW)
    assert str(caught.value) == caught.value.reason
    return caught.value.reason


def test_valid_replay_is_typed() -> None:
    parsed = parse_replay(VALID, now=NOW)
    assert parsed == ParsedReplay(
        source_replay_id="r-000001",
        played_at=datetime(2026, 11, 21, 14, 3, 11, tzinfo=UTC),
        reported_at=None,
        floor=10,
        players=(
            ReplayPlayer("230129212655563979", "Sol Badguy Main", 0, "pc"),
            ReplayPlayer("210611080522104011", "kyo", 1, "ps"),
        ),
        winner=0,
    )


def test_lenient_forms_are_normalised() -> None:
    obj = replay(id=42, played_at=1763733791, winner=2, floor=...)
    obj["players"][0].update(id=230129212655563979, character="so", platform="PC")
    obj["players"][1].update(character=26, name="  kyo  ")
    del obj["players"][1]["platform"]
    parsed = parse_replay(obj, now=NOW)
    assert parsed.source_replay_id == "42"
    assert parsed.played_at == datetime(2025, 11, 21, 14, 3, 11, tzinfo=UTC)
    assert parsed.floor is None
    assert parsed.winner == 1
    assert parsed.players == (
        ReplayPlayer("230129212655563979", "Sol Badguy Main", 0, "pc"),
        ReplayPlayer("210611080522104011", "kyo", 26, ""),
    )


def test_offsets_are_converted_to_utc() -> None:
    parsed = parse_replay(replay(played_at="2026-11-21T23:03:11+09:00"), now=NOW)
    assert parsed.played_at == datetime(2026, 11, 21, 14, 3, 11, tzinfo=UTC)
    assert parsed.played_at.tzinfo is UTC


@pytest.mark.parametrize("floor", [1, 5, 10, 99, None])
def test_floors_accepted(floor: int | None) -> None:
    assert parse_replay(replay(floor=floor), now=NOW).floor == floor


@pytest.mark.parametrize(
    ("obj", "reason"),
    [
        ([], "replay is not an object"),
        ("r-1", "replay is not an object"),
        (replay(id=...), "missing id"),
        (replay(id=None), "missing id"),
        (replay(id=""), "id is empty"),
        (replay(id="   "), "id is empty"),
        (replay(id="x" * 129), "id longer than 128 characters"),
        (replay(id=True), "id must be a string or integer, not bool"),
        (replay(id=1.5), "id must be a string or integer, not float"),
        (replay(id="r\n1"), "id holds unprintable characters"),
        (replay(played_at=...), "missing played_at"),
        (replay(played_at="2026-11-21T14:03:11"), "played_at has no UTC offset"),
        (replay(played_at="2026-11-21"), "played_at has no UTC offset"),
        (replay(played_at="yesterday"), "played_at is not ISO 8601: 'yesterday'"),
        (replay(played_at=""), "played_at is not ISO 8601: ''"),
        (replay(played_at=True), "played_at must be ISO 8601 text or integer epoch seconds"),
        (replay(played_at=1.7e9), "played_at must be ISO 8601 text or integer epoch seconds"),
        (
            replay(played_at=float("nan")),
            "played_at must be ISO 8601 text or integer epoch seconds",
        ),
        (replay(played_at=1763733791000), "played_at out of range: 1763733791000"),
        (replay(played_at=-1), "played_at out of range: -1"),
        (
            replay(played_at="1970-01-01T00:00:00Z"),
            "played_at out of range: '1970-01-01T00:00:00Z'",
        ),
        (
            replay(played_at="9999-12-31T23:59:59-14:00"),
            "played_at out of range: '9999-12-31T23:59:59-14:00'",
        ),
        (replay(floor=0), "floor must be 1-10 or 99, not 0"),
        (replay(floor=11), "floor must be 1-10 or 99, not 11"),
        (replay(floor=98), "floor must be 1-10 or 99, not 98"),
        (replay(floor="10"), "floor must be 1-10 or 99, not '10'"),
        (replay(floor=True), "floor must be 1-10 or 99, not True"),
        (replay(floor=10.0), "floor must be 1-10 or 99, not 10.0"),
        (replay(winner=...), "missing winner"),
        (replay(winner=0), "winner must be 1 or 2"),
        (replay(winner=3), "winner must be 1 or 2"),
        (replay(winner="1"), "winner must be 1 or 2"),
        (replay(winner=True), "winner must be 1 or 2"),
        (replay(winner=1.0), "winner must be 1 or 2"),
        (replay(players=...), "players must be a list of two"),
        (replay(players=[VALID["players"][0]]), "players must be a list of two"),
        (replay(players=[*VALID["players"], VALID["players"][0]]), "players must be a list of two"),
        (replay(players={"1": VALID["players"][0]}), "players must be a list of two"),
        (replay(players=[VALID["players"][0], "kyo"]), "player 2 is not an object"),
        (with_player(1, id=...), "player 1: missing id"),
        (with_player(1, id=""), "player 1: missing id"),
        (with_player(2, id="abc"), "player 2: id must be digits, not 'abc'"),
        (with_player(2, id="-1"), "player 2: id must be digits, not '-1'"),
        (with_player(2, id=-1), "player 2: id must be digits, not -1"),
        (with_player(2, id=True), "player 2: id must be digits, not True"),
        (with_player(2, id="\uff11\uff12"), "player 2: id must be digits, not '\uff11\uff12'"),
        (with_player(2, id="1" * 33), "player 2: id longer than 32 digits"),
        (with_player(1, name=...), "player 1: missing name"),
        (with_player(1, name=5), "player 1: name must be a string"),
        (with_player(1, name=""), "player 1: name is empty"),
        (with_player(1, name=" \t "), "player 1: name is empty"),
        (with_player(1, name="x" * 65), "player 1: name longer than 64 characters"),
        (with_player(2, name="tab\there"), "player 2: name holds control characters"),
        (with_player(2, name="kyo\n"), "player 2: name holds control characters"),
        (with_player(2, name="bell\x07"), "player 2: name holds control characters"),
        (with_player(2, name="del\x7f"), "player 2: name holds control characters"),
        (with_player(2, name="c1\x85"), "player 2: name holds control characters"),
        (with_player(2, name="line\u2028break"), "player 2: name holds control characters"),
        (with_player(2, name="half\ud800"), "player 2: name holds invalid unicode"),
        (with_player(1, character="ZZ"), "unknown character 'ZZ'"),
        (with_player(1, character=""), "unknown character ''"),
        (with_player(1, character=27), "unknown character 27"),
        (with_player(1, character=-1), "unknown character -1"),
        (with_player(1, character=True), "unknown character True"),
        (with_player(1, character=0.0), "unknown character 0.0"),
        (with_player(1, character=["SO"]), "unknown character ['SO']"),
        (with_player(1, character=...), "player 1: missing character"),
        (with_player(2, platform="switch"), "player 2: unknown platform 'switch'"),
        (with_player(2, platform=1), "player 2: unknown platform 1"),
        (with_player(2, id=VALID["players"][0]["id"]), "player plays against themself"),
    ],
)
def test_rejections_say_why(obj: object, reason: str) -> None:
    assert reason_for(obj) == reason


def test_same_player_is_caught_across_id_forms() -> None:
    assert reason_for(with_player(2, id=230129212655563979)) == "player plays against themself"


# Hostile names: the validator guards storage; escaping on output is the pages' job.


@pytest.mark.parametrize(
    "name",
    [
        "<script>alert(1)</script>",
        "'; DROP TABLE players; --",
        "ソル使い",
        "Łukasz 🔥",
        "محمد",
        "\u200fمحمد\u200e",  # RTL and LTR marks (format characters): accepted by design
        "zero\u200bwidth",
        "full\u3000width space",
        "x" * 64,
    ],
)
def test_unusual_names_are_accepted_unchanged(name: str) -> None:
    assert parse_replay(with_player(1, name=name), now=NOW).players[0].name == name


def test_names_are_trimmed_before_the_length_limit() -> None:
    parsed = parse_replay(with_player(1, name=f"   {'x' * 64}   "), now=NOW)
    assert parsed.players[0].name == "x" * 64


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("x" * 10_000, "player 1: name longer than 64 characters"),
        ("\x00" * 10_000, "player 1: name longer than 64 characters"),
        ("nul\x00", "player 1: name holds control characters"),
        ("\x00", "player 1: name holds control characters"),
    ],
)
def test_hostile_names_are_rejected(name: str, reason: str) -> None:
    assert reason_for(with_player(1, name=name)) == reason


def test_reasons_stay_short_for_huge_values() -> None:
    for obj in (
        with_player(1, character="Z" * 10_000),
        replay(played_at="9" * 10_000),
        with_player(2, id="a" * 10_000),
    ):
        assert len(reason_for(obj)) < 80


# Future times: stored at ingestion time with the reported time kept, not dropped.


def test_time_within_clock_skew_is_kept() -> None:
    played_at = NOW + timedelta(minutes=4)
    parsed = parse_replay(replay(played_at=played_at.isoformat()), now=NOW)
    assert parsed.played_at == played_at
    assert parsed.reported_at is None


def test_future_time_is_replaced_and_kept_as_reported() -> None:
    parsed = parse_replay(replay(played_at="2026-11-21T16:00:00+00:00"), now=NOW)
    assert parsed.played_at == NOW
    assert parsed.reported_at == datetime(2026, 11, 21, 16, tzinfo=UTC)


def test_clock_skew_is_configurable() -> None:
    obj = replay(played_at="2026-11-21T15:01:00Z")
    assert parse_replay(obj, now=NOW, max_clock_skew=timedelta(0)).reported_at is not None
    assert parse_replay(obj, now=NOW, max_clock_skew=timedelta(minutes=2)).reported_at is None


# Arbitrary input never escapes as anything but InvalidReplay.

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
id_values = st.sampled_from(["230129212655563979", "1", "", "x"]) | json_values
player_values = st.fixed_dictionaries(
    {},
    optional={
        "id": id_values,
        "name": st.text(max_size=80) | json_values,
        "character": st.sampled_from(["SO", "ab", "ZZ", 0, 26, 27]) | json_values,
        "platform": st.sampled_from(["pc", "ps", "xbox", ""]) | json_values,
    },
)
replay_like = st.fixed_dictionaries(
    {},
    optional={
        "id": id_values,
        "played_at": st.datetimes(timezones=st.none() | st.timezones()).map(datetime.isoformat)
        | st.integers()
        | json_values,
        "floor": st.integers(-1, 100) | json_values,
        "winner": st.integers(0, 3) | json_values,
        "players": st.lists(player_values | json_values, max_size=3),
    },
)


def _outcome(obj: object) -> ParsedReplay | None:
    try:
        return parse_replay(obj, now=NOW)
    except InvalidReplay:
        return None


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_arbitrary_json_is_rejected_cleanly(obj: object) -> None:
    _outcome(obj)


@settings(max_examples=500, deadline=None)
@given(replay_like)
def test_replay_like_input_is_parsed_or_rejected(obj: dict) -> None:
    parsed = _outcome(obj)
    if parsed is not None:
        assert parsed.played_at.tzinfo is UTC
        assert parsed.played_at <= NOW + timedelta(minutes=5)
        assert parsed.winner in (0, 1)
        assert parsed.players[0].id != parsed.players[1].id
        for player in parsed.players:
            assert 0 < len(player.name) <= 64
            assert player.platform in ("", "pc", "ps", "xbox")
