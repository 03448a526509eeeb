"""A player's own profile: the claim ("This is me"), signing in with the owner key, and
the owner's settings. Never cached: each answer is for one browser (its session)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import wraps

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.cache import patch_cache_control
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from players.formatting import shown_name
from players.models import Claim, Ownership, Player
from players.selectors.ownership import linked_accounts, ownership_of
from players.services import ownership as service
from web.limits import client_address, within_limit

View = Callable[..., HttpResponse]

HOUR = 3600
# The session's keys: claims this browser started ({player id: [claim id, token]}) and
# the profiles it is signed in to ({player id: key version}).
CLAIMS, SIGNED_IN = "claims", "owner_of"


@dataclass
class ClaimState:
    state: str  # none, waiting, claimed, done, expired, closed
    message: str
    code: str = ""
    expires_at: str = ""
    key: str = ""  # the owner key, in the one answer that shows it


def _player(player_id: str) -> Player:
    # An operator's hidden player cannot be claimed; a private one can (a lost key).
    player = Player.objects.filter(id=player_id, hidden=False).first()
    if player is None:
        raise Http404("No such player")
    return player


def _display_name(player: Player) -> str:
    return "this private profile" if player.private else shown_name(player.name)


def _sign_in(request: HttpRequest, ownership: Ownership) -> None:
    signed_in = request.session.get(SIGNED_IN, {})
    signed_in[ownership.player_id] = ownership.key_version
    request.session[SIGNED_IN] = signed_in
    request.session.cycle_key()  # a new session id on every sign-in


def signed_in_ownership(request: HttpRequest, player_id: str) -> tuple[Ownership | None, str]:
    """The ownership this browser is signed in to, and why it was signed out if it was
    (a new claim replaced the key, an operator revoked it, the key was rotated elsewhere)."""
    version = request.session.get(SIGNED_IN, {}).get(player_id)
    if version is None:
        return None, ""
    ownership = ownership_of(player_id)
    if ownership is not None and ownership.key_version == version and ownership.revoked_at is None:
        return ownership, ""
    signed_in = request.session[SIGNED_IN]
    del signed_in[player_id]
    request.session[SIGNED_IN] = signed_in
    if ownership is None or ownership.revoked_at is not None:
        return None, "An operator revoked your ownership of this profile."
    if ownership.replaced_at is not None:
        when = ownership.replaced_at.strftime("%Y-%m-%d %H:%M UTC")
        return None, f"Someone claimed this profile again on {when}: your key no longer works."
    return None, "Your key was changed in another browser: sign in with the new one."


def _claim_state(request: HttpRequest, player: Player) -> ClaimState:
    """Where this browser's claim on `player` stands; collects the key the one time the
    claim is complete and the key not yet shown."""
    held = request.session.get(CLAIMS, {}).get(player.id)
    claim = None if held is None else service.claim_for_token(held[0], held[1])
    if claim is None:
        return ClaimState("none", "")
    state = ClaimState(
        "waiting",
        f"Waiting for a game of {_display_name(player)} whose name holds the code.",
        code=claim.code,
        expires_at=claim.expires_at.isoformat(),
    )
    if claim.completed_at is not None:
        return _completed(request, claim, state, held[1])
    if claim.closed_at is not None:
        state.state = "closed"
        state.message = "Another claim on this profile completed first. Start a new one."
    elif claim.expires_at <= timezone.now():
        state.state = "expired"
        state.message = "This code has expired. Start a new claim."
    return state


def _completed(request: HttpRequest, claim: Claim, state: ClaimState, token: str) -> ClaimState:
    key = service.collect_key(claim, token, client_address(request))
    if key is None:
        state.state = "done"
        state.message = "This claim is complete; its key was shown once, in this browser."
        return state
    ownership = ownership_of(claim.player_id)
    assert ownership is not None
    _sign_in(request, ownership)
    state.state, state.key = "claimed", key
    state.message = (
        "It is yours. This is your owner key, shown only this once: keep it in a "
        "password manager. You are signed in."
    )
    return state


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def claim(request: HttpRequest, player_id: str) -> HttpResponse:
    """ "This is me": start a claim (POST), or follow this browser's claim (GET)."""
    player = _player(player_id)
    if request.method == "POST":
        address = client_address(request)
        if not within_limit(
            "claim-start", (address, player.id), settings.CLAIM_STARTS_PER_HOUR, HOUR
        ):
            refused = render(
                request,
                "players/claim.html",
                {"player": player, "name": _display_name(player), "throttled": True},
                status=429,
            )
            refused["Retry-After"] = str(HOUR)
            return refused
        started = service.start_claim(player, address)
        claims = request.session.get(CLAIMS, {})
        claims[player.id] = [started.claim.pk, started.token]
        request.session[CLAIMS] = claims
        return redirect("claim", player_id=player.id)
    context = {
        "player": player,
        "name": _display_name(player),
        "claim": _claim_state(request, player),
        "hours": settings.CLAIM_CODE_HOURS,
    }
    return render(request, "players/claim.html", context)


@never_cache
@require_GET
def claim_status(request: HttpRequest, player_id: str) -> JsonResponse:
    """The claim page polls this: its state, and the key in the one answer that shows it."""
    return JsonResponse(asdict(_claim_state(request, _player(player_id))))


def _key_attempt_allowed(request: HttpRequest, player_id: str) -> bool:
    return within_limit(
        "owner-key", (client_address(request), player_id), settings.KEY_ATTEMPTS_PER_HOUR, HOUR
    )


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def owner(request: HttpRequest, player_id: str) -> HttpResponse:
    """The owner's settings, or the form that signs in with the key."""
    player = _player(player_id)
    ownership, signed_out = signed_in_ownership(request, player.id)
    context: dict[str, object] = {"player": player, "name": _display_name(player)}
    status = 200
    if request.method == "POST":
        action = request.POST.get("action", "")
        if ownership is None and action == "sign-in":
            if not _key_attempt_allowed(request, player.id):
                context["error"] = "Too many attempts: try again within the hour."
                status = 429
            elif (opened := service.check_key(player.id, request.POST.get("key", ""))) is None:
                context["error"] = "That key does not open this profile."
                status = 403
            else:
                _sign_in(request, opened)
                return redirect("owner", player_id=player.id)
        elif ownership is not None:
            outcome = _owner_action(request, ownership, action)
            if isinstance(outcome, HttpResponse):
                return outcome
            context.update(outcome)
            status = 403 if "error" in outcome else 200
            player.refresh_from_db()
    if ownership is not None:  # the owner sees their own name, private or not
        context["name"] = shown_name(player.name)
    context.update(
        ownership=ownership,
        signed_out=signed_out,
        linked=[] if ownership is None else linked_accounts(ownership),
    )
    return render(request, "players/owner.html", context, status=status)


def _owner_action(request: HttpRequest, ownership: Ownership, action: str) -> dict | HttpResponse:
    address = client_address(request)
    if action in ("private", "public"):
        service.set_private(ownership, action == "private", by="owner", client_address=address)
        return redirect("owner", player_id=ownership.player_id)
    if action == "rotate":
        key = service.rotate_key(ownership, address)
        _sign_in(request, ownership)
        return {"new_key": key}
    if action == "sign-out":
        signed_in = request.session.get(SIGNED_IN, {})
        signed_in.pop(ownership.player_id, None)
        request.session[SIGNED_IN] = signed_in
        return redirect("player", player_id=ownership.player_id)
    if action == "link":
        other_id = request.POST.get("other", "").strip()
        if not _key_attempt_allowed(request, other_id):
            return {"error": "Too many attempts: try again within the hour."}
        other = service.check_key(other_id, request.POST.get("other_key", ""))
        if other is None or other.player_id == ownership.player_id:
            return {"error": "That key does not open that account."}
        service.link(ownership, other, address)
        return redirect("owner", player_id=ownership.player_id)
    if action == "unlink":
        service.unlink(ownership, address)
        return redirect("owner", player_id=ownership.player_id)
    return {"error": "Unknown action."}


def private_to_its_owner(cached: View, view: View) -> View:
    """A profile view that shows a private player's own page to their signed-in owner,
    rendered for them alone and never stored (`view` with as_owner=True), and everyone
    else the `cached` page (where a private player is unknown). Only a browser that holds
    a session is looked at, so the public pages' answers stay as they are."""

    @wraps(cached)
    def dispatch(request: HttpRequest, player_id: str, **kwargs: object) -> HttpResponse:
        if settings.SESSION_COOKIE_NAME in request.COOKIES and _is_private(player_id):
            ownership, _ = signed_in_ownership(request, player_id)
            if ownership is not None:
                response = view(request, player_id, as_owner=True, **kwargs)
                patch_cache_control(response, private=True, no_store=True)
                return response
        return cached(request, player_id, **kwargs)

    return dispatch


def _is_private(player_id: str) -> bool:
    return Player.objects.filter(id=player_id, private=True).exists()
