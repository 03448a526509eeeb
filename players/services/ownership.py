"""Players own their profiles: claims, owner keys, private profiles, linked accounts.

A claim is started in one browser, which keeps a random token (only its SHA-256 is
stored) and is shown a short code. A replay of that player whose name holds the code,
seen after the claim started, completes it (`complete_claims`, called by ingestion after
the games are stored); the browser holding the token then collects the owner key, once
(`collect_key`). The key is kept only as a password hash. Every new key raises the
ownership's `key_version`, which signs out browsers signed in under an older one.
Every change is logged (OwnershipEvent) with its time and client address.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.hashers import check_password, make_password
from django.db import transaction
from django.utils import timezone

from players.models import Claim, Ownership, OwnershipEvent, Player
from web.generation import bump_generation

# Letters nobody misreads or mistypes for another (no B/8, G/6, I/L/1, O/Q/0, S/5, Z/2).
CODE_LETTERS = "ACDEFHJKMNPRTUVWXY"
CODE_LENGTH = 6
KEY_BYTES = 24  # 192 bits: shown once, typed back rarely (a password manager keeps it)
Kind = OwnershipEvent.Kind


@dataclass(frozen=True)
class StartedClaim:
    claim: Claim
    token: str  # kept by the browser that started the claim; never stored


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _log(player_id: str, kind: str, by: str, client_address: str | None, detail: str = "") -> None:
    OwnershipEvent.objects.create(
        player_id=player_id,
        kind=kind,
        at=timezone.now(),
        by=by,
        client_address=client_address or None,
        detail=detail,
    )


def new_code() -> str:
    return "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))


def start_claim(player: Player, client_address: str | None) -> StartedClaim:
    """A new claim on `player`, valid CLAIM_CODE_HOURS. Claims already open stay open:
    a stranger starting one cannot cancel the player's own."""
    now = timezone.now()
    token = secrets.token_urlsafe(32)
    claim = Claim.objects.create(
        player=player,
        code=new_code(),
        token_hash=_digest(token),
        started_at=now,
        expires_at=now + timedelta(hours=settings.CLAIM_CODE_HOURS),
        client_address=client_address or None,
    )
    _log(player.pk, Kind.CLAIM_STARTED, "browser", client_address, f"claim {claim.pk}")
    return StartedClaim(claim, token)


def _name_holds(name: str, code: str) -> bool:
    # Case and spaces do not matter: some games fold case, players space a code out.
    return code in "".join(name.split()).upper()


def complete_claims(sightings: Iterable[tuple[str, str, datetime]]) -> list[Claim]:
    """Complete the open claims that (player id, name, seen at) sightings prove: the
    player's own name, used after the claim started, holds its code. Returns them.

    One indexed query when no claim is open (nearly always)."""
    now = timezone.now()
    open_claims: dict[str, list[Claim]] = {}
    for claim in Claim.objects.filter(
        completed_at__isnull=True, closed_at__isnull=True, expires_at__gt=now
    ):
        open_claims.setdefault(claim.player_id, []).append(claim)
    if not open_claims:
        return []
    proven: dict[str, Claim] = {}
    for player_id, name, seen_at in sightings:
        for claim in open_claims.get(player_id, ()):
            if seen_at >= claim.started_at and _name_holds(name, claim.code):
                proven.setdefault(player_id, claim)
    return [claim for claim in map(_complete, proven.values()) if claim is not None]


def _complete(claim: Claim) -> Claim | None:
    with transaction.atomic():
        claim = Claim.objects.select_for_update().get(pk=claim.pk)
        if claim.completed_at is not None or claim.closed_at is not None:
            return None
        now = timezone.now()
        ownership = Ownership.objects.select_for_update().filter(player_id=claim.player_id).first()
        if ownership is None:
            ownership = Ownership(player_id=claim.player_id, claimed_at=now)
        elif ownership.revoked_at is None and ownership.key_version:
            ownership.replaced_at = now  # a lost key: the old owner is told on their next visit
        # No usable key until the claiming browser collects it.
        ownership.key_hash = make_password(None)
        ownership.key_version += 1
        ownership.claimed_at, ownership.revoked_at = now, None
        ownership.save()
        claim.completed_at, claim.key_version = now, ownership.key_version
        claim.save(update_fields=["completed_at", "key_version"])
        # The other open claims die: an old code never completes a later claim.
        Claim.objects.filter(
            player_id=claim.player_id, completed_at__isnull=True, closed_at__isnull=True
        ).update(closed_at=now)
        _log(claim.player_id, Kind.CLAIMED, "replay", None, f"claim {claim.pk}, code {claim.code}")
    return claim


def _new_key(ownership: Ownership) -> str:
    key = secrets.token_urlsafe(KEY_BYTES)
    ownership.key_hash = make_password(key)
    ownership.key_version += 1
    ownership.save(update_fields=["key_hash", "key_version"])
    return key


def collect_key(claim: Claim, token: str, client_address: str | None) -> str | None:
    """The owner key of a completed claim, once, to the browser holding its token; None
    for anyone else, a second time, or when a later claim has replaced it since."""
    if not hmac.compare_digest(claim.token_hash, _digest(token)):
        return None
    with transaction.atomic():
        claim = Claim.objects.select_for_update().get(pk=claim.pk)
        ownership = Ownership.objects.select_for_update().filter(player_id=claim.player_id).first()
        if (
            claim.completed_at is None
            or claim.key_issued_at is not None
            or ownership is None
            or ownership.key_version != claim.key_version
        ):
            return None
        key = _new_key(ownership)
        claim.key_issued_at, claim.key_version = timezone.now(), ownership.key_version
        claim.save(update_fields=["key_issued_at", "key_version"])
        _log(claim.player_id, Kind.KEY_ISSUED, "owner", client_address, f"claim {claim.pk}")
    return key


def claim_for_token(claim_id: int, token: str) -> Claim | None:
    """The claim a browser's stored (id, token) names, if the token is that claim's."""
    claim = Claim.objects.filter(pk=claim_id).first()
    if claim is None or not hmac.compare_digest(claim.token_hash, _digest(token)):
        return None
    return claim


def check_key(player_id: str, key: str) -> Ownership | None:
    """The ownership `key` opens, or None (throttle the callers: players.views.ownership)."""
    ownership = Ownership.objects.filter(player_id=player_id, revoked_at__isnull=True).first()
    if ownership is None or not check_password(key, ownership.key_hash):
        return None
    return ownership


def rotate_key(ownership: Ownership, client_address: str | None) -> str:
    with transaction.atomic():
        key = _new_key(ownership)
        _log(ownership.player_id, Kind.KEY_ROTATED, "owner", client_address)
    return key


def set_private(
    ownership: Ownership, private: bool, *, by: str, client_address: str | None
) -> bool:
    """Make the owned profile private or public again; True if it changed. Only an owner
    (or an operator, `by` naming them) gets here: nobody can hide another's profile."""
    with transaction.atomic():
        changed = Player.objects.filter(pk=ownership.player_id).exclude(private=private)
        if not changed.update(private=private):
            return False
        _log(ownership.player_id, Kind.PRIVATE if private else Kind.PUBLIC, by, client_address)
        transaction.on_commit(bump_generation)  # every cached page and answer goes stale
    return True


def revoke(ownership: Ownership, *, by: str, client_address: str | None) -> None:
    """An operator takes the ownership away: the key stops working, signed-in browsers
    are signed out, the profile is public again and unlinked."""
    with transaction.atomic():
        ownership.key_hash = make_password(None)
        ownership.key_version += 1
        ownership.revoked_at, ownership.person = timezone.now(), None
        ownership.save()
        _log(ownership.player_id, Kind.REVOKED, by, client_address)
        set_private(ownership, False, by=by, client_address=client_address)


def link(ownership: Ownership, other: Ownership, client_address: str | None) -> None:
    """One person: the two accounts (and those already linked to either) share a person."""
    with transaction.atomic():
        person = ownership.person or other.person or uuid.uuid4()
        merged = {p for p in (ownership.person, other.person) if p is not None}
        Ownership.objects.filter(person__in=merged).update(person=person)
        Ownership.objects.filter(pk__in=[ownership.pk, other.pk]).update(person=person)
        for one, another in ((ownership, other), (other, ownership)):
            _log(one.player_id, Kind.LINKED, "owner", client_address, another.player_id)
        transaction.on_commit(bump_generation)


def unlink(ownership: Ownership, client_address: str | None) -> None:
    with transaction.atomic():
        Ownership.objects.filter(pk=ownership.pk).update(person=None)
        _log(ownership.player_id, Kind.UNLINKED, "owner", client_address)
        transaction.on_commit(bump_generation)
