"""Site statistics: `/api/v1/stats/`."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from matches.api import examples
from matches.api.serializers.patches import PatchQuery
from matches.api.serializers.statistics import SiteStatisticsSerializer
from matches.selectors.statistics import site_statistics
from web.api import documented, query_parameters
from web.caching import cached_get


class StatisticsView(APIView):
    @documented(
        tag="stats",
        operation_id="stats",
        summary="Site statistics",
        description="Totals, recent activity, games per day, rating and floor distributions, "
        "rating percentiles, character "
        "popularity (this week's, and a patch's: the current one unless `patch` names "
        "another or `all`), the patch's rating distribution and the fraud index, as of the "
        "latest periodic refresh.",
        parameters=[PatchQuery],
        response=SiteStatisticsSerializer,
        example=examples.STATISTICS,
        errors=[400, 404],
    )
    @cached_get
    def get(self, request: Request) -> Response:
        choice = query_parameters(PatchQuery, request)["patch"]
        return Response(SiteStatisticsSerializer(site_statistics(choice)).data)
