"""Deploy checks for what Django's own checks cannot see."""

from __future__ import annotations

from typing import Any

import redis
from django.conf import settings
from django.core.checks import Error, Tags, register


@register(Tags.security, deploy=True)
def secret_key_from_environment(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """A site that is not DEBUG needs SECRET_KEY from its environment: the per-install key
    in VAR_DIR differs between hosts (sessions and signatures would not carry across) and
    lives beside the data it protects."""
    if settings.DEBUG or settings.SECRET_KEY_FROM_ENVIRONMENT:
        return []
    return [
        Error(
            "SECRET_KEY is not set in the environment: the site runs on a per-install key "
            "generated in VAR_DIR.",
            hint="Set SECRET_KEY to a long random value shared by every host of the site.",
            id="web.E001",
        )
    ]


# Eviction policies that make room for new entries; `noeviction` refuses writes instead,
# and the volatile-* ones evict nothing the cache stored without a timeout.
EVICTING_POLICIES = {"allkeys-lru", "allkeys-lfu", "allkeys-random"}


def redis_memory_settings(location: str) -> tuple[int, str]:
    """(maxmemory in bytes, maxmemory-policy) of the Redis server at `location`."""
    client = redis.Redis.from_url(location, socket_timeout=5)
    try:
        found = client.config_get("maxmemory*")
    finally:
        client.close()
    return int(found.get("maxmemory", 0)), found.get("maxmemory-policy", "")


@register(Tags.caches)
def redis_cache_is_bounded(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """A Redis cache needs a memory limit and an eviction policy: every page a client asks
    for is an entry, and without them one client fills the server's memory (issue 35)."""
    cache = settings.CACHES["default"]
    if not cache["BACKEND"].endswith("RedisCache"):
        return []
    hint = (
        "Set `maxmemory 1gb` and `maxmemory-policy allkeys-lru` in the cache's redis.conf "
        "(README.md, Production)."
    )
    try:
        maxmemory, policy = redis_memory_settings(cache["LOCATION"])
    except redis.RedisError as error:
        return [
            Error(
                f"The Redis cache's memory settings cannot be read: {error}",
                hint=hint,
                id="web.E003",
            )
        ]
    if maxmemory > 0 and policy in EVICTING_POLICIES:
        return []
    return [
        Error(
            f"The Redis cache has maxmemory {maxmemory} and maxmemory-policy {policy!r}: "
            "without a limit and an allkeys-* eviction policy, clients can fill its memory.",
            hint=hint,
            id="web.E002",
        )
    ]
