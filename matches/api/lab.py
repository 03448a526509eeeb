"""The rating systems lab: `/api/v1/lab/`."""

from __future__ import annotations

from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from matches.api import examples
from matches.api.serializers.lab import LabReportSerializer
from matches.selectors.calibration import calibration_report
from matches.selectors.lab import latest_lab_report
from web.api import documented
from web.caching import cached_get

NO_LAB_REPORT = (
    "No lab report yet: the rating systems have not been evaluated. One appears after the "
    "periodic evaluation (or `manage.py evaluate_ratings`) has run."
)


class LabView(APIView):
    @documented(
        tag="lab",
        operation_id="lab",
        summary="How well each rating system predicts",
        description="The latest evaluation of the rating systems on the stored games (Glicko "
        "as the site runs it, Glicko-2, Elo, TrueSkill, Moonstone): each game in time order is "
        "predicted before the systems learn its result; log loss, Brier score, accuracy and a "
        "calibration table per system, over all games and over games between established "
        "ratings, and the calibration the site's shown chances go through. Refreshed by a "
        "periodic task; 404 until the first evaluation has run.",
        response=LabReportSerializer,
        example=examples.LAB,
        errors=[404],
        error_details={404: ("No evaluation has been computed yet.", NO_LAB_REPORT)},
    )
    @cached_get
    def get(self, request: Request) -> Response:
        report = latest_lab_report()
        if report is None:
            raise NotFound(NO_LAB_REPORT)
        return Response(LabReportSerializer(report | {"calibration": calibration_report()}).data)
