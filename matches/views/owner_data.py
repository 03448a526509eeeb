"""An owner's downloads: every game and the rating history of their accounts (linked
ones included), as CSV or JSON. Only for a browser signed in to the profile."""

from __future__ import annotations

import io
import json

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from matches.selectors.owner_data import GAME_FIELDS, owner_games
from players.export import RATING_HISTORY_FIELDS, rating_history, write_csv
from players.selectors.ownership import linked_accounts
from players.views.ownership import signed_in_ownership

TABLES = {"games": (GAME_FIELDS, owner_games), "ratings": (RATING_HISTORY_FIELDS, rating_history)}


@never_cache
@require_GET
def download(request: HttpRequest, player_id: str, table: str, extension: str) -> HttpResponse:
    ownership, _ = signed_in_ownership(request, player_id)
    if ownership is None:
        return HttpResponse("Sign in with your owner key first.", status=403)
    if table not in TABLES or extension not in ("csv", "json"):
        raise Http404("No such download")
    fields, read = TABLES[table]
    player_ids = [player_id, *(other.id for other in linked_accounts(ownership))]
    rows = read(player_ids)
    if extension == "csv":
        body = io.StringIO()
        write_csv(body, fields, rows)
        content, content_type = body.getvalue(), "text/csv; charset=utf-8"
    else:
        content = json.dumps(list(rows), ensure_ascii=False, default=str)
        content_type = "application/json"
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{player_id}-{table}.{extension}"'
    return response
