from django.conf import settings
from django.http import HttpRequest


def site(request: HttpRequest) -> dict[str, object]:
    """What every page's layout needs: the site's name and the search box's value."""
    return {"site_name": settings.SITE_NAME, "search_query": request.GET.get("name", "")}
