"""Attempts counted in fixed windows in the shared cache: the pages' own throttles (claim
starts, owner key attempts). The API's are DRF's; both name a client the same way."""

from __future__ import annotations

import time

from django.core.cache import cache
from django.http import HttpRequest
from rest_framework.throttling import AnonRateThrottle


def client_address(request: HttpRequest) -> str:
    """The client's address as the API throttles take it (X-Forwarded-For only behind
    NUM_PROXIES proxies: a client can forge the header)."""
    return AnonRateThrottle().get_ident(request)


def within_limit(scope: str, idents: tuple[str, ...], limit: int, window_seconds: int) -> bool:
    """Count one attempt against each of `idents` (a client, a profile); False when any
    of them is past `limit` attempts in the current window. Refused attempts count too."""
    window = int(time.time() // window_seconds)
    allowed = True
    for ident in idents:
        key = f"limit:{scope}:{ident}:{window}"
        cache.add(key, 0, window_seconds)
        try:
            count = cache.incr(key)
        except ValueError:  # evicted between the two calls
            cache.set(key, 1, window_seconds)
            count = 1
        allowed = allowed and count <= limit
    return allowed
