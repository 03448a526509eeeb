"""Replays in the shared format of docs/replay-format.md: reading and validation.

Pure Python with no Django import, so the rules can be tested and benchmarked alone
and reused by every source (file import, HTTP feed, simulator).
"""

from matches.replays.readers import (
    CSV_COLUMNS,
    RawReplay,
    iter_replay_file,
    iter_replay_payloads,
)
from matches.replays.validation import (
    InvalidReplay,
    ParsedReplay,
    ReplayPlayer,
    parse_replay,
)

__all__ = [
    "CSV_COLUMNS",
    "InvalidReplay",
    "ParsedReplay",
    "RawReplay",
    "ReplayPlayer",
    "iter_replay_file",
    "iter_replay_payloads",
    "parse_replay",
]
