"""The ratings generation: one number bumped whenever ratings or derived tables change.

Pages and API responses cache on it (as the cache version, and in ETags), so they are
recomputed only after the data they show has changed.
"""

from __future__ import annotations

import time

from django.core.cache import cache

_KEY = "ratings-generation"


def current_generation() -> int:
    """The current generation; starts from the clock so a cleared cache never reuses one."""
    generation = cache.get(_KEY)
    if generation is None:
        generation = int(time.time() * 1000)
        cache.add(_KEY, generation, timeout=None)
        generation = cache.get(_KEY, generation)
    return generation


def bump_generation() -> int:
    """Mark every cached page and response as stale."""
    current_generation()
    try:
        return cache.incr(_KEY)
    except ValueError:  # evicted between the two calls
        return current_generation()
