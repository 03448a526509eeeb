"""The rows storing replays writes (matches.services.ingest, matches.services.file_import):
a game's match row, a rejected replay as it can be stored, and how a sighting of a player
or a name merges into the one stored."""

from __future__ import annotations

import hashlib
from datetime import datetime

from matches.models import IngestRun, RejectedReplay, ReplaySource
from matches.replays.batch import Rejection
from matches.replays.storable import storable, storable_text
from matches.replays.validation import FlatReplay, from_epoch_microseconds
from players.models import Player, PlayerName

# Enough of a rejected payload to see what was wrong without storing megabytes.
MAX_REJECTED_RAW_CHARS = 16_384
MAX_REASON_CHARS = RejectedReplay._meta.get_field("reason").max_length
ESCAPED_NOTE = " (raw text escaped: NUL and lone surrogates written as \\x00, \\udXXX)"

MATCH_INSERT_COLUMNS = (
    "source_id",
    "source_replay_id",
    "played_at",
    "reported_at",
    "ingested_at",
    "floor",
    "player_a_id",
    "character_a_id",
    "platform_a",
    "player_b_id",
    "character_b_id",
    "platform_b",
    "winner",
    "version",
)

NAME_COLUMNS = ("player_id", "name", "first_seen", "last_seen")
PLAYER_COLUMNS = (
    "id", "name", "platform", "floor", "first_seen", "last_seen", "hidden", "cheater", "supporter"
)  # fmt: skip


def player_upserts() -> tuple[str, str]:
    """The ON CONFLICT clauses that merge a run's sightings into the players and names
    stored: the latest name, platform and floor win, first and last seen widen."""
    table, names_table = Player._meta.db_table, PlayerName._meta.db_table
    newer = f"excluded.last_seen >= {table}.last_seen"
    return (
        f"""ON CONFLICT (id) DO UPDATE SET
            name = CASE WHEN {newer} THEN excluded.name ELSE {table}.name END,
            platform = CASE WHEN {newer} THEN excluded.platform ELSE {table}.platform END,
            floor = CASE WHEN {newer} THEN COALESCE(excluded.floor, {table}.floor)
                    ELSE {table}.floor END,
            first_seen = LEAST({table}.first_seen, excluded.first_seen),
            last_seen = GREATEST({table}.last_seen, excluded.last_seen)""",
        f"""ON CONFLICT (player_id, name) DO UPDATE SET
            first_seen = LEAST({names_table}.first_seen, excluded.first_seen),
            last_seen = GREATEST({names_table}.last_seen, excluded.last_seen)""",
    )


def match_row(source_id: int, replay: FlatReplay, now: datetime) -> tuple:
    """The stored row of a game: side A is the player with the smaller id."""
    (replay_id, played, reported, floor,
     id1, _, char1, platform1, id2, _, char2, platform2,
     winner, version) = replay  # fmt: skip
    if id1 > id2:
        id1, char1, platform1, id2, char2, platform2 = id2, char2, platform2, id1, char1, platform1
        winner = 1 - winner
    return (
        source_id,
        replay_id,
        from_epoch_microseconds(played),
        None if reported is None else from_epoch_microseconds(reported),
        now,
        floor,
        id1,
        char1,
        platform1,
        id2,
        char2,
        platform2,
        "A" if winner == 0 else "B",
        version,
    )


def rejected_replay(
    source: ReplaySource, run: IngestRun | None, rejection: Rejection, now: datetime
) -> RejectedReplay:
    """A rejected replay as it can be stored: its raw text and reason pass the storable
    boundary, and the reason says when the raw text had to be escaped. The fingerprint
    is taken from the text as received (surrogates included), so it stays distinct and
    the same for the same input."""
    raw, reason, waiting_for = rejection
    fingerprint = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()
    raw, escaped = storable(raw[:MAX_REJECTED_RAW_CHARS])
    reason = storable_text(reason)
    if escaped:
        reason = reason[: MAX_REASON_CHARS - len(ESCAPED_NOTE)] + ESCAPED_NOTE
    return RejectedReplay(
        source=source,
        run=run,
        raw=raw,
        fingerprint=fingerprint,
        reason=reason[:MAX_REASON_CHARS],
        waiting_for=waiting_for,
        created_at=now,
    )
