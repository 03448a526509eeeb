"""The one boundary that makes untrusted text storable
(docs/replay-format.md#validation-and-rejections).

PostgreSQL text cannot hold NUL, and no database driver can encode a lone surrogate
(which ``json.loads`` produces from an escape such as ``\\ud800``). Every text taken
from input that is stored as it came (a rejected replay's raw text, a reason, a run's
error) passes through ``storable``, which writes those characters as visible escapes
(``\\x00``, ``\\ud800``) and says whether it had to. Valid replays never need it:
validation rejects such characters in every field a game stores.
"""

from __future__ import annotations

import re

# Every surrogate in a str is unpaired: str holds code points, and a paired escape
# decodes to one astral character.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return "\\x00" if char == "\x00" else f"\\u{ord(char):04x}"


def storable(text: str) -> tuple[str, bool]:
    """``text`` with NUL and lone surrogates escaped, and whether any was."""
    escaped, count = _UNSTORABLE.subn(_escape, text)
    return escaped, count > 0


def storable_text(text: str) -> str:
    """``text`` made storable, for messages where escaping needs no mention."""
    return storable(text)[0]
