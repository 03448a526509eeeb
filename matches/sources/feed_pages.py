"""Reading one page of the JSON feed (docs/replay-format.md#the-http-feed) so that a bad
replay costs only itself.

A page is decoded at once with orjson, the fast path. When that fails but the page's
shape ``{"replays": [...], "next": ...}`` is intact (one replay nested 100,000 deep,
invalid UTF-8 or a lone surrogate inside one replay's string), the replays array is
split into its elements by a scan of strings and brackets alone, and each element is
decoded on its own: the undecodable ones become rejected RawReplays and the rest of
the page is stored as usual. A page whose shape cannot be read (truncated, HTML) is a
FeedError, and so is a ``next`` cursor that cannot be stored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import orjson

from matches.models import ReplaySource
from matches.replays.readers import RawReplay, iter_replay_payloads

MAX_CURSOR_LENGTH = ReplaySource._meta.get_field("cursor").max_length
_NOT_A_PAGE = 'not a feed page: expected {"replays": [...], "next": ...}'
_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'  # a JSON string, escapes included
# A string or one structural character: all that a page's shape needs.
_TOKEN = re.compile(_STRING + rb"|[][{}:,]", re.DOTALL)
_KEY = re.compile(rb"[ \t\r\n]*(" + _STRING + rb")[ \t\r\n]*:", re.DOTALL)
_BLANKS = re.compile(rb"[ \t\r\n]*")
_OPENING, _CLOSING, _COMMA, _WHITESPACE = b"[{", b"]}", ord(","), b" \t\r\n"


class FeedError(Exception):
    """A page could not be read; ``retryable`` when another attempt may succeed."""

    def __init__(self, message: str, *, retryable: bool = True) -> None:
        super().__init__(message)
        self.retryable = retryable


@dataclass(frozen=True)
class FeedPage:
    replays: list[RawReplay]
    next: str | None


def parse_page(body: bytes) -> FeedPage:
    """The replays and the next cursor of a page; FeedError when the page cannot be read."""
    try:
        document = orjson.loads(body)
        if not isinstance(document, dict) or not isinstance(document.get("replays"), list):
            raise FeedError(_NOT_A_PAGE)
        # Each replay's raw text is re-encoded, which one nested ~1,000 deep cannot survive.
        replays = list(iter_replay_payloads(document["replays"]))
    except (orjson.JSONDecodeError, RecursionError) as error:
        return _parse_by_parts(body, error)
    return FeedPage(replays, storable_cursor(document.get("next")))


def storable_cursor(value: object) -> str | None:
    """The ``next`` of a page as the text the cursor column stores; FeedError when it
    cannot be one (not retried: the feed would send the same again)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise FeedError(f"invalid next cursor: a {type(value).__name__}", retryable=False)
    cursor = str(value)
    if len(cursor) > MAX_CURSOR_LENGTH:
        raise FeedError(f"next cursor longer than {MAX_CURSOR_LENGTH} characters", retryable=False)
    if not cursor.isprintable():  # NUL, control characters, unpaired surrogates
        raise FeedError(
            f"next cursor {cursor[:40]!r} holds characters that cannot be stored", retryable=False
        )
    return cursor


class _Shapeless(ValueError):
    """The page's brackets do not close, or it is not an object holding a replays array."""


def _parse_by_parts(body: bytes, error: Exception) -> FeedPage:
    try:
        fields = _object_fields(body)
        start, end = fields[b'"replays"']
        if body[start : start + 1] != b"[":
            raise FeedError(_NOT_A_PAGE)
        elements, after = _members(body, start)
        if after != end:
            raise _Shapeless
    except (_Shapeless, KeyError):
        raise FeedError(f"invalid JSON: {error}") from None
    replays = [
        _decode_replay(position, body[first:last])
        for position, (first, last) in enumerate(elements, start=1)
    ]
    if b'"next"' not in fields:
        return FeedPage(replays, None)
    start, end = fields[b'"next"']
    try:
        next_cursor = orjson.loads(body[start:end])
    except orjson.JSONDecodeError as invalid:
        raise FeedError(f"invalid next cursor: {invalid}", retryable=False) from None
    return FeedPage(replays, storable_cursor(next_cursor))


def _decode_replay(position: int, element: bytes) -> RawReplay:
    """One replay of a page on its own: decoded, or rejected with why it cannot be."""
    try:
        [replay] = iter_replay_payloads([orjson.loads(element)])
    except orjson.JSONDecodeError as error:
        reason = f"invalid JSON: {error}"
    except RecursionError:
        reason = "invalid JSON: nested too deeply"
    else:
        return replay._replace(line=position)
    return RawReplay(position, element.decode("utf-8", "backslashreplace"), None, reason)


def _object_fields(body: bytes) -> dict[bytes, tuple[int, int]]:
    """The value span of each key of the page's top-level object (keys as written, the
    last of a repeated key winning, as in a JSON decoder)."""
    start = _BLANKS.match(body).end()
    if body[start : start + 1] != b"{":
        raise _Shapeless
    members, end = _members(body, start)
    if _BLANKS.match(body, end).end() != len(body):
        raise _Shapeless
    fields = {}
    for member_start, member_end in members:
        key = _KEY.match(body, member_start, member_end)
        if key is None:
            raise _Shapeless
        fields[key.group(1)] = (_BLANKS.match(body, key.end()).end(), member_end)
    return fields


def _members(body: bytes, start: int) -> tuple[list[tuple[int, int]], int]:
    """The spans of the members of the array or object opening at ``start`` (blanks
    around them left out), and the index after its closing bracket. Only strings and
    brackets are read, so a value nested however deep costs no recursion."""
    members = []
    depth, member_start = 0, start + 1
    for token in _TOKEN.finditer(body, start):
        char = body[token.start()]
        if char in _OPENING:
            depth += 1
        elif char in _CLOSING:
            depth -= 1
            if depth == 0:
                members.append(_trimmed(body, member_start, token.start()))
                empty = len(members) == 1 and members[0][0] == members[0][1]
                return ([] if empty else members), token.end()
        elif char == _COMMA and depth == 1:
            members.append(_trimmed(body, member_start, token.start()))
            member_start = token.end()
    raise _Shapeless


def _trimmed(body: bytes, start: int, end: int) -> tuple[int, int]:
    start = _BLANKS.match(body, start, end).end()
    while end > start and body[end - 1] in _WHITESPACE:
        end -= 1
    return start, end
