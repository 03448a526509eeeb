"""Batches of read replays made ready to store: the valid ones as flat tuples, the
invalid ones with their reasons, and what they showed of each player.

Pure Python without Django, so a child process can do all of it beside the one that
writes (`matches.services.import_process`).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import NamedTuple

from matches.replays.readers import RawReplay, csv_payload
from matches.replays.validation import (
    CharacterCodes,
    FlatReplay,
    InvalidReplay,
    UnknownCharacter,
    epoch_microseconds,
    flat_replay,
    parse_replay,
    plain_csv_replay,
)


class Rejection(NamedTuple):
    """A replay that did not pass: its text as received, why, and the character code it
    waits for when that is all it lacks (else "")."""

    raw: str
    reason: str
    waiting_for: str = ""


def parse_batch(
    items: Iterable[RawReplay],
    *,
    now: datetime,
    max_clock_skew: timedelta,
    characters: CharacterCodes,
) -> tuple[list[FlatReplay], list[Rejection]]:
    """The valid replays of a batch, flat, and the others' rejections."""
    latest = epoch_microseconds(now + max_clock_skew)
    valid: list[FlatReplay] = []
    rejected: list[Rejection] = []
    for item in items:
        if item.error is not None:
            rejected.append(Rejection(item.raw, item.error))
            continue
        cells = item.cells
        if cells is not None:
            plain = plain_csv_replay(cells, latest, characters)
            if plain is not None:
                valid.append(plain)
                continue
            payload = csv_payload(cells)
        else:
            payload = item.payload
        try:
            parsed = parse_replay(
                payload, now=now, characters=characters, max_clock_skew=max_clock_skew
            )
        except UnknownCharacter as unknown:
            rejected.append(Rejection(item.raw, unknown.reason, unknown.code))
        except InvalidReplay as error:
            rejected.append(Rejection(item.raw, error.reason))
        else:
            valid.append(flat_replay(parsed))
    return valid, rejected


class PlayerSightings:
    """What a run of batches showed of each player, written once for the whole run.

    A player appears in many games of an import; upserting their row once per run
    instead of once per chunk is what keeps large imports fast. Keeps, per player, the
    latest name, platform and floor and the first and last time seen; per (player,
    name), the first and last time that name was used. Times are epoch microseconds
    (`FlatReplay`), which compare several times faster than datetimes.
    """

    def __init__(self) -> None:
        # player id: [id, name, platform, floor, first seen, last seen, the names entry
        # of its name]
        self.latest: dict[str, list] = {}
        # (player id, name): [player id, name, first seen, last seen]
        self.names: dict[tuple[str, str], list] = {}

    def __len__(self) -> int:
        return len(self.latest)

    def add(self, replays: Iterable[FlatReplay]) -> None:
        latest, names = self.latest, self.names
        for replay in replays:
            _, moment, _, floor, id1, name1, _, platform1, id2, name2, _, platform2, *_ = replay
            for player_id, name, platform in ((id1, name1, platform1), (id2, name2, platform2)):
                row = latest.get(player_id)
                if row is None:
                    seen = [player_id, name, moment, moment]
                    names[(player_id, name)] = seen
                    latest[player_id] = [player_id, name, platform, floor, moment, moment, seen]
                    continue
                # Players mostly keep their name: its entry hangs on the player's row.
                seen = row[6] if name == row[1] else names.get((player_id, name))
                if seen is None:
                    seen = names[(player_id, name)] = [player_id, name, moment, moment]
                elif moment > seen[3]:
                    seen[3] = moment
                elif moment < seen[2]:
                    seen[2] = moment
                if moment >= row[5]:
                    row[1], row[2], row[5], row[6] = name, platform, moment, seen
                    if floor is not None:
                        row[3] = floor
                elif moment < row[4]:
                    row[4] = moment
