from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("ratingsite.api_urls")),
    path("", include("ratingsite.page_urls")),
]
