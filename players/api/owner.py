"""An owner reads their own data through the API with their key (README "Your profile"):
`Authorization: Key <player id>:<owner key>`, throttled per owner at OWNER_API_THROTTLE_RATE,
above the anonymous rate; failed keys count against the key attempts of the pages."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from players.models import Ownership
from players.services.ownership import check_key
from web.limits import client_address, within_limit

SCHEME = "Key"
# A key checked once is remembered this long (by its SHA-256 and the ownership's key
# version): the password hash takes most of a second to check, by design.
CHECKED_KEY_SECONDS = 600
HOUR = 3600


@dataclass(frozen=True)
class KeyOwner:
    """The client a valid key names (DRF's request.user)."""

    player_id: str
    is_authenticated: bool = True


class OwnerKeyAuthentication(BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[KeyOwner, Ownership] | None:
        scheme, _, credentials = request.headers.get("Authorization", "").partition(" ")
        if scheme != SCHEME:
            return None
        player_id, _, key = credentials.strip().partition(":")
        if not player_id.isdigit() or not key:
            raise exceptions.AuthenticationFailed("Give Key <player id>:<owner key>.")
        ownership = self._checked(request, player_id, key)
        if ownership is None:
            raise exceptions.AuthenticationFailed("That key does not open that profile.")
        return KeyOwner(player_id), ownership

    def _checked(self, request: Request, player_id: str, key: str) -> Ownership | None:
        remembered = "owner-key:" + hashlib.sha256(f"{player_id}:{key}".encode()).hexdigest()
        version = cache.get(remembered)
        if version is not None:
            ownership = Ownership.objects.filter(
                player_id=player_id, key_version=version, revoked_at__isnull=True
            ).first()
            if ownership is not None:
                return ownership
        if not within_limit(
            "owner-key",
            (client_address(request), player_id),
            settings.KEY_ATTEMPTS_PER_HOUR,
            HOUR,
        ):
            raise exceptions.Throttled(wait=HOUR)
        ownership = check_key(player_id, key)
        if ownership is not None:
            cache.set(remembered, ownership.key_version, CHECKED_KEY_SECONDS)
        return ownership

    def authenticate_header(self, request: Request) -> str:
        return SCHEME


class OwnerRateThrottle(SimpleRateThrottle):
    """Per owner, at the "owner" rate; anonymous clients keep the anonymous throttle."""

    scope = "owner"

    def get_cache_key(self, request: Request, view: object) -> str | None:
        if not isinstance(request.user, KeyOwner):
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.player_id}


class OwnerKeyScheme(OpenApiAuthenticationExtension):
    target_class = "players.api.owner.OwnerKeyAuthentication"
    name = "ownerKey"

    def get_security_definition(self, auto_schema: object) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Key <player id>:<owner key>`: the key shown when the profile "
            "was claimed.",
        }
