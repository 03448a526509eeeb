"""The rating systems lab page (`/lab`): how well each system predicted the stored games."""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import SafeString

from matches import charts
from matches.selectors.calibration import calibration_report
from matches.selectors.lab import LabReport, lab_report
from matches.services.evaluation import SITE_SYSTEM

# The lab's headline scores: (key, heading, True when a lower score is better).
LAB_SCORES = (
    ("log_loss", "Log loss", True),
    ("brier", "Brier", True),
    ("accuracy", "Accuracy", False),
)
LAB_SCOPES = (("overall", "All games"), ("established", "Established"))
COIN_FLIP_LOG_LOSS = math.log(2)  # what always saying 50% scores


def _best_systems(report: LabReport) -> dict[str, dict[str, set[str]]]:
    """{scope: {score: names of the systems with the best value}} (ties share it)."""
    best: dict[str, dict[str, set[str]]] = {}
    for scope, _ in LAB_SCOPES:
        best[scope] = {}
        for key, _, lower in LAB_SCORES:
            values = {
                s.name: getattr(s, scope)[key]
                for s in report.systems
                if getattr(s, scope)[key] is not None
            }
            if values:
                target = (min if lower else max)(values.values())
                best[scope][key] = {
                    name for name, v in values.items() if round(v, 4) == round(target, 4)
                }
    return best


def _score_text(key: str, value: float | None) -> str:
    if value is None:
        return "—"
    return f"{100 * value:.1f}%" if key == "accuracy" else f"{value:.4f}"


def _lab_tables(report: LabReport, best: dict[str, dict[str, set[str]]]) -> list[dict[str, object]]:
    """Per system: the system, a row per score with a cell per scope (the best of the
    systems marked), and its calibration bins for both scopes."""
    tables = []
    for system in report.systems:
        scopes = [getattr(system, scope) for scope, _ in LAB_SCOPES]
        rows = [
            {
                "heading": heading,
                "lower": lower,
                "cells": [
                    {
                        "text": _score_text(key, metrics[key]),
                        "best": system.name in best[scope].get(key, ()),
                    }
                    for (scope, _), metrics in zip(LAB_SCOPES, scopes, strict=True)
                ],
            }
            for key, heading, lower in LAB_SCORES
        ]
        games = [metrics["games"] for metrics in scopes]
        bins = [
            {
                "range": f"{100 * overall['low']:.0f}\u2013{100 * overall['high']:.0f}%",
                "scopes": [
                    (
                        row["games"],
                        "—" if row["observed"] is None else f"{100 * row['observed']:.1f}%",
                    )
                    for row in (overall, established)
                ],
            }
            for overall, established in zip(
                system.overall["calibration"], system.established["calibration"], strict=True
            )
        ]
        tables.append({"system": system, "rows": rows, "games": games, "bins": bins})
    return tables


def _calibration_charts(report: LabReport) -> dict[str, SafeString]:
    charts_by_scope = {}
    for scope, heading in LAB_SCOPES:
        series = [
            charts.CalibrationSeries(
                system.label,
                [
                    charts.CalibrationPoint(row["predicted"], row["observed"], row["games"])
                    for row in getattr(system, scope)["calibration"]
                    if row["games"] and row["predicted"] is not None and row["observed"] is not None
                ],
            )
            for system in report.systems
        ]
        charts_by_scope[scope] = charts.calibration_chart(
            f"calibration-{scope}", series, title=f"Calibration: {heading.lower()}"
        )
    return charts_by_scope


def _shown_calibration(fit: dict[str, Any] | None) -> dict[str, object] | None:
    """How often the site's shown chances came true, as shown and corrected by the latest
    calibration fit (a measurement, not applied to them): the fit and its reliability chart."""
    if not fit:
        return None
    series = [
        charts.CalibrationSeries(
            label,
            [
                charts.CalibrationPoint(row["predicted"], row["observed"], row["games"])
                for row in fit[key]
                if row["games"] and row["predicted"] is not None
            ],
        )
        for key, label in (("before", "As shown"), ("after", "Corrected"))
    ]
    return {
        "fit": fit,
        "fitted_at": datetime.fromisoformat(fit["fitted_at"]),
        "chart": charts.calibration_chart(
            "calibration-shown", series, title="The site's chances as shown and corrected"
        ),
    }


def _settling(report: LabReport, fit: dict[str, Any] | None) -> dict[str, object] | None:
    """When the site's own system predicted worse than a coin flip over all games (a
    young site: most ratings have few games), what it scored and what the shown,
    calibrated chances scored, for the notice that says why."""
    site = next((s for s in report.systems if s.name == SITE_SYSTEM), None)
    if site is None or site.overall["log_loss"] is None:
        return None
    if site.overall["log_loss"] <= COIN_FLIP_LOG_LOSS:
        return None
    return {
        "system": site,
        "log_loss": site.overall["log_loss"],
        "coin_flip": COIN_FLIP_LOG_LOSS,
        "shown_log_loss": fit["log_loss_after"] if fit else None,
    }


def lab(request: HttpRequest) -> HttpResponse:
    """The rating systems lab: how well each system predicted the stored games."""
    report = lab_report()
    fit = calibration_report()
    context: dict[str, object] = {"report": report, "scopes": LAB_SCOPES}
    if report is not None:
        best = _best_systems(report)
        labels = {system.name: system.label for system in report.systems}
        context |= {
            "tables": _lab_tables(report, best),
            "charts": _calibration_charts(report),
            "shown": _shown_calibration(fit),
            "settling": _settling(report, fit),
            "best_overall": sorted(labels[n] for n in best["overall"].get("log_loss", ())),
            "best_established": sorted(labels[n] for n in best["established"].get("log_loss", ())),
        }
    return render(request, "matches/lab.html", context)
