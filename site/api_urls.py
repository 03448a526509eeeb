"""The public API: version 1 under /api/v1/, its OpenAPI schema and the Swagger UI.

Every v1 view answers with an ETag bound to the ratings generation and a Cache-Control
max-age (ratingsite.api.conditional); anything else under /api/ is a 404 in the API's
error shape.
"""

from __future__ import annotations

from django.urls import URLPattern, include, path, re_path, register_converter
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.views import APIView

from matches.api import views as match_views
from players.api import views as player_views
from players.api.converters import CharacterConverter, PlayerIdConverter
from ratingsite.api import conditional, not_found

# Ratings change about once a minute; the roster only with a deployment.
MAX_AGE = 60
ROSTER_MAX_AGE = 3600

register_converter(PlayerIdConverter, "player_id")
register_converter(CharacterConverter, "character")

CHARACTER = "<character:character>/"
PLAYER = "players/<player_id:player_id>/"
RATING = f"{PLAYER}{CHARACTER}"


def endpoint(route: str, view: type[APIView], name: str, max_age: int = MAX_AGE) -> URLPattern:
    return path(route, conditional(view.as_view(), max_age=max_age), name=name)


v1 = [
    endpoint("characters/", player_views.CharacterList, "characters", ROSTER_MAX_AGE),
    endpoint("players/", player_views.PlayerSearch, "players"),
    endpoint(PLAYER, player_views.PlayerDetailView, "player"),
    endpoint(RATING, player_views.RatingDetailView, "rating"),
    endpoint(f"{RATING}history/", match_views.RatingHistoryView, "rating-history"),
    endpoint(f"{RATING}matches/", match_views.RatingMatchesView, "rating-matches"),
    endpoint(f"{RATING}matchups/", player_views.RatingMatchupsView, "rating-matchups"),
    endpoint(f"{RATING}opponents/", match_views.RatingOpponentsView, "rating-opponents"),
    endpoint("rankings/", player_views.Rankings, "rankings"),
    endpoint(
        "rankings/<character:character>/", player_views.CharacterRankings, "character-rankings"
    ),
    endpoint("matchups/", match_views.CharacterMatchupsView, "matchups"),
    endpoint("probability/", match_views.ProbabilityView, "probability"),
    endpoint("stats/", match_views.StatisticsView, "stats"),
    endpoint("lab/", match_views.LabView, "lab"),
]

urlpatterns = [
    path("v1/", include((v1, "api"), namespace="v1")),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    re_path(r"^(.*/)?$", not_found),
]
