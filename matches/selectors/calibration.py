"""How often the site's shown chances came true (docs/rating-model.md#calibration): one
temperature on their log-odds, a measurement that no shown chance goes through; the
calculator names it beside its chance, and /lab shows it.

Every refresh fits it again on the chances stored with the latest games
(matches.services.calibration) and stores it as the SiteStatistic "calibration".
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from matches.models import SiteStatistic
from matches.ratings.calibration import calibrated

CALIBRATION_STATISTIC = "calibration"


@dataclass(frozen=True)
class Calibration:
    """One temperature on the logit of the site's P(win), and where it came from."""

    temperature: float = 1.0
    fitted_at: datetime | None = None  # None: never fitted, probabilities shown as they are
    games: int = 0
    log_loss_before: float | None = None
    log_loss_after: float | None = None

    def shown(self, model_probability: float) -> float:
        """The probability a page or the API shows for a model probability."""
        return calibrated(model_probability, self.temperature)


def calibration_report() -> dict[str, Any] | None:
    """The latest fit as stored: {temperature, games, log_loss_before, log_loss_after,
    fitted_at, before: [bins], after: [bins]} (None before the first fit); one query."""
    stored = SiteStatistic.objects.filter(key=CALIBRATION_STATISTIC).values_list("data", flat=True)
    return stored.first() or None


def current_calibration() -> Calibration:
    """The latest fitted calibration (one query); read it once per page or response."""
    stored = calibration_report()
    if not stored:
        return Calibration()
    return Calibration(
        temperature=stored["temperature"],
        fitted_at=datetime.fromisoformat(stored["fitted_at"]),
        games=stored["games"],
        log_loss_before=stored["log_loss_before"],
        log_loss_after=stored["log_loss_after"],
    )
