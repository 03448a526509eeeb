"""The public API: version 1 under /api/v1/, its OpenAPI schema and the Swagger UI.

`/api/v1/` lists the endpoints. Every v1 view answers with an ETag bound to the ratings
generation and a Cache-Control max-age (web.api.conditional); anything else under /api/
is a 404 in the API's error shape.
"""

from __future__ import annotations

from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update
from django.urls import URLPattern, include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.serializers import Serializer
from rest_framework.views import APIView

from matches.api import (
    calculator,
    lab,
    matchups,
    notable_games,
    owner_data,
    profile,
    rivals,
    seasons,
    statistics,
)
from matches.api.serializers.calculator import ProbabilityQuery
from matches.api.serializers.matchups import MatchupsQuery
from matches.api.serializers.patches import PatchQuery, RatingPatchQuery
from matches.api.serializers.profile import HistoryQuery, MatchesQuery, OpponentsQuery
from matches.api.serializers.rivals import HeadToHeadQuery, MeetingsQuery
from matches.api.serializers.seasons import SeasonQuery
from players.api import characters, players, rankings, search
from players.api.serializers import CharacterRankingQuery, RankingQuery, SearchQuery
from web.api import conditional, endpoint_index, not_found

# Ratings change about once a minute; the roster when an operator saves a character, and
# a client should see a new one as soon as pages do.
MAX_AGE = 60

CHARACTER = "<character:character>/"
PLAYER = "players/<player_id:player_id>/"
RATING = f"{PLAYER}{CHARACTER}"


def endpoint(
    route: str,
    view: type[APIView],
    name: str,
    max_age: int = MAX_AGE,
    query: type[Serializer] | None = None,
) -> URLPattern:
    """The view's URL; its query parameters are the fields of its `query` serializer and
    those of its pagination (others are dropped before the view and its cache see them)."""
    reads = list(query().fields) if query else []
    paginator = getattr(view, "pagination_class", None)
    if paginator is not None:
        names = (paginator.page_query_param, paginator.page_size_query_param)
        reads += [name for name in names if name]
    return path(route, conditional(view.as_view(), max_age=max_age, reads=reads), name=name)


v1 = [
    endpoint("characters/", characters.CharacterList, "characters"),
    endpoint("players/", search.PlayerSearch, "players", query=SearchQuery),
    endpoint(PLAYER, players.PlayerDetailView, "player"),
    endpoint(RATING, players.RatingDetailView, "rating"),
    endpoint(f"{RATING}history/", profile.RatingHistoryView, "rating-history", query=HistoryQuery),
    endpoint(f"{RATING}matches/", profile.RatingMatchesView, "rating-matches", query=MatchesQuery),
    endpoint(
        f"{RATING}matchups/",
        profile.RatingMatchupsView,
        "rating-matchups",
        query=RatingPatchQuery,
    ),
    endpoint(f"{RATING}placement/", profile.RatingPlacementView, "rating-placement"),
    endpoint(
        f"{RATING}opponents/",
        profile.RatingOpponentsView,
        "rating-opponents",
        query=OpponentsQuery,
    ),
    endpoint(f"{RATING}rivals/", rivals.MeetingsView, "rating-rivals", query=MeetingsQuery),
    endpoint(
        f"{RATING}vs/<player_id:opponent_id>/",
        rivals.HeadToHeadView,
        "head-to-head",
        query=HeadToHeadQuery,
    ),
    endpoint("rankings/", rankings.Rankings, "rankings", query=RankingQuery),
    endpoint(
        "rankings/<character:character>/",
        rankings.CharacterRankings,
        "character-rankings",
        query=CharacterRankingQuery,
    ),
    endpoint("matchups/", matchups.CharacterMatchupsView, "matchups", query=MatchupsQuery),
    endpoint("probability/", calculator.ProbabilityView, "probability", query=ProbabilityQuery),
    endpoint("stats/", statistics.StatisticsView, "stats", query=PatchQuery),
    endpoint("recent/", notable_games.NotableGamesView, "recent"),
    endpoint("seasons/", seasons.SeasonList, "seasons"),
    endpoint("seasons/<slug:name>/", seasons.SeasonLadder, "season", query=SeasonQuery),
    endpoint("lab/", lab.LabView, "lab"),
    # An owner's own data: per owner, never cached (no ETag, no shared entry).
    path("me/games/", owner_data.OwnerGamesView.as_view(), name="owner-games"),
    path("me/ratings/", owner_data.OwnerRatingsView.as_view(), name="owner-ratings"),
]

urlpatterns = [
    path(
        "v1/",
        endpoint_index(v1, {"schema": "api-schema", "docs": "api-docs"}),
        name="api-index",
    ),
    path("v1/", include((v1, "api"), namespace="v1")),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves its script from a URL (no inline script); the page keeps one
    # small <style> element of its own, which this view alone allows.
    path(
        "docs/",
        csp_update({"style-src": [UNSAFE_INLINE]})(
            SpectacularSwaggerSplitView.as_view(url_name="api-schema")
        ),
        name="api-docs",
    ),
    re_path(r"^(.*/)?$", not_found),
]
