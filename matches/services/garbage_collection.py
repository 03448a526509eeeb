"""Memory handling for the bulk passes over every game (imports and recomputes)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_garbage_collection() -> Iterator[None]:
    """Run a bulk pass without Python's cyclic garbage collector.

    Such a pass builds millions of long-lived objects (ratings, matchups, parsed rows)
    that form no reference cycles, and every full collection walks all of them again:
    that cost a recompute of a million games a fifth of its time. Reference counting
    still frees everything as usual; the collector resumes at the end.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
