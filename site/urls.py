from django.conf import settings
from django.contrib import admin
from django.urls import include, path, register_converter

from players.api.converters import CharacterConverter, PlayerIdConverter
from web.metrics import metrics

# Pages and API alike: anything else in these places is a 404 before a view or the
# database sees it.
register_converter(PlayerIdConverter, "player_id")
register_converter(CharacterConverter, "character")

# A page's InvalidQuery says what the parameter takes (web.errors).
handler400 = "web.errors.bad_request"

urlpatterns = [
    path(settings.ADMIN_URL, admin.site.urls),
    path("metrics", metrics, name="metrics"),
    path("api/", include("ratingsite.api_urls")),
    path("", include("ratingsite.page_urls")),
]
