"""The rating systems lab (`/lab`, docs/rating-model.md#the-lab-other-systems-and-tuning):
the latest evaluation of the rating systems (matches.services.evaluation writes it)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from matches.models import SiteStatistic

# The statistic holding the lab report.
LAB_STATISTIC = "lab"


def latest_lab_report() -> dict[str, Any] | None:
    """The stored lab report (the shape `evaluate` returns), or None before the first run."""
    return SiteStatistic.objects.filter(key=LAB_STATISTIC).values_list("data", flat=True).first()


def lab_has_scored_games() -> bool:
    """Whether a stored lab report scored any games (False on a new site, before the
    first evaluation or after one that ran before any games were stored)."""
    report = latest_lab_report()
    return bool(report and report["games"])


# How the lab's registry names read on a page.
SYSTEM_LABELS = {
    "glicko": "Glicko (this site)",
    "glicko2": "Glicko-2",
    "elo": "Elo",
    "trueskill": "TrueSkill",
    "moonstone": "Moonstone",
}


@dataclass(frozen=True)
class LabSystem:
    name: str  # the registry name
    label: str
    note: str
    # {games, log_loss, brier, accuracy, calibration: [{low, high, games, predicted,
    # observed}]}, scores None without games (matches.services.evaluation.metrics_report)
    overall: dict[str, Any]
    established: dict[str, Any]


@dataclass(frozen=True)
class LabReport:
    """The latest evaluation of the rating systems (matches.services.evaluation)."""

    computed_at: datetime
    since: datetime | None  # None: the whole history
    games: int
    excluded_games: int
    established_min_games: int
    seconds: float
    systems: list[LabSystem]


def lab_report() -> LabReport | None:
    """The stored lab report, ready for a page (None before the first evaluation); one query."""
    data = latest_lab_report()
    if data is None:
        return None
    since = data.get("since")
    return LabReport(
        computed_at=datetime.fromisoformat(data["computed_at"]),
        since=datetime.fromisoformat(since) if since else None,
        games=data["games"],
        excluded_games=data["excluded_games"],
        established_min_games=data["established_min_games"],
        seconds=data["seconds"],
        systems=[
            LabSystem(
                name=system["name"],
                label=SYSTEM_LABELS.get(system["name"], system["name"]),
                note=system.get("note", ""),
                overall=system["overall"],
                established=system["established"],
            )
            for system in data["systems"]
        ],
    )
