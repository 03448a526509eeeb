"""The win probabilities the site shows (DESIGN.md section 4.5): every page and API field
that shows a probability takes it from `shown_probability`, so that the calibration the
lab fits can be plugged in at one place. The raw model probability stays available in
the API as `model_win_probability`."""

from __future__ import annotations


def shown_probability(raw: float) -> float:
    """The probability shown for the model's `raw` P(win): the identity until a calibration
    map is fitted (static/js/calculator-1.0.js mirrors this for the live calculator)."""
    return raw
