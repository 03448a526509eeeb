"""The rating systems lab page: the latest evaluation, its charts, and the state before one."""

from __future__ import annotations

import re

import pytest

from matches.models import SiteStatistic
from matches.selectors.lab import LAB_STATISTIC, SYSTEM_LABELS, latest_lab_report
from matches.services.calibration import refit_calibration
from matches.services.evaluation import (
    DEFAULT_SYSTEMS,
    NOTES,
    refresh_lab,
    save_lab_report,
)
from tests.factories import store_calibration
from tests.fixtures.pages import QUERY_LIMIT

pytestmark = pytest.mark.django_db


def charts_of(html: str) -> dict[str, str]:
    return dict(re.findall(r'<svg class="chart".*? id="([a-z-]+)">(.*?)</svg>', html, re.S))


def metrics(log_loss: float | None, brier: float | None, accuracy: float | None, games: int):
    calibration = [
        {
            "low": i / 10,
            "high": (i + 1) / 10,
            "games": games // 10 if games else 0,
            "predicted": (i + 0.5) / 10 if games else None,
            "observed": (i + 0.4) / 10 if games else None,
        }
        for i in range(10)
    ]
    return {
        "games": games,
        "log_loss": log_loss,
        "brier": brier,
        "accuracy": accuracy,
        "calibration": calibration,
    }


def report(systems: list[dict]) -> dict:
    return {
        "computed_at": "2026-11-20T04:00:00+00:00",
        "since": None,
        "games": 5000,
        "excluded_games": 12,
        "established_min_games": 20,
        "seconds": 1.5,
        "systems": systems,
    }


def test_before_the_first_evaluation_the_page_says_so(client, db, django_assert_max_num_queries):
    with django_assert_max_num_queries(QUERY_LIMIT):
        response = client.get("/lab")
    assert response.status_code == 200
    html = response.content.decode()
    assert "No evaluation yet." in html
    assert "<svg" not in html
    assert "lower is better" in html  # the explanation is there all the same
    assert '<a href="/lab">Lab</a>' in html  # in the main navigation


def test_the_latest_evaluation_per_system_with_notes_and_calibration(
    client, league, django_assert_max_num_queries
):
    refresh_lab()
    refit_calibration()
    stored = latest_lab_report()
    with django_assert_max_num_queries(QUERY_LIMIT):
        html = client.get("/lab").content.decode()
    assert "No evaluation yet." not in html
    assert f"on {stored['games']:,} games" in html
    assert "Evaluated <time" in html
    for system in stored["systems"]:
        assert f"{SYSTEM_LABELS[system['name']]}</h3>" in html
        for scope in ("overall", "established"):
            scores = system[scope]
            assert f"{scores['log_loss']:.4f}" in html
            assert f"{scores['brier']:.4f}" in html
            assert f"{100 * scores['accuracy']:.1f}%" in html
            assert f"{scores['games']:,}" in html
    assert {s["name"] for s in stored["systems"]} == set(DEFAULT_SYSTEMS)
    # Moonstone's note says how it got a probability at all; quotes are escaped.
    assert "Moonstone has no probability model" in NOTES["moonstone"]
    assert "Moonstone has no probability model" in html
    charts = charts_of(html)
    assert charts.keys() == {"calibration-overall", "calibration-established", "calibration-shown"}
    overall = charts["calibration-overall"]
    assert overall.count('class="chart-diagonal"') == 1
    assert overall.count("<polyline") == len(DEFAULT_SYSTEMS)
    assert all(f'class="chart-series-{i}"' in overall for i in range(len(DEFAULT_SYSTEMS)))
    assert re.search(
        r"<title>Elo: predicted \d+\.\d%, won \d+\.\d% of [\d,]+ games?</title>", overall
    )
    # The best log loss over all games is named and starred.
    best = min(stored["systems"], key=lambda s: s["overall"]["log_loss"])
    verdict = re.search(r'<p class="lab-verdict">(.*?)</p>', html, re.S).group(1)
    assert f"<strong>{SYSTEM_LABELS[best['name']]}" in verdict
    star = f'{best["overall"]["log_loss"]:.4f} <span title="Best of the systems">★</span>'
    assert star in html


def test_scores_mark_the_best_system_and_missing_scores_read_as_a_dash(client, db):
    save_lab_report(
        report(
            [
                {
                    "name": "glicko",
                    "note": "",
                    "overall": metrics(0.61, 0.21, 0.66, 5000),
                    "established": metrics(None, None, None, 0),
                },
                {
                    "name": "elo",
                    "note": "Elo with K = 32.",
                    "overall": metrics(0.64, 0.22, 0.67, 5000),
                    "established": metrics(None, None, None, 0),
                },
            ]
        )
    )
    html = client.get("/lab").content.decode()
    assert '<td class="num best">0.6100 <span title="Best of the systems">★</span></td>' in html
    assert '<td class="num">0.6400</td>' in html  # Elo's log loss: not the best
    assert '<td class="num best">67.0%' in html  # higher accuracy is the better one
    # Established: three scores and ten bins without games, for both systems.
    assert html.count('<td class="num">—</td>') == 2 * (3 + 10)
    assert "Elo with K = 32." in html
    assert "12 games with hidden or flagged players were left out" in html
    charts = charts_of(html)
    assert charts["calibration-overall"].count("<polyline") == 2
    assert "No data yet." in charts["calibration-established"]
    assert (
        "<title>Glicko (this site): predicted 5.0%, won 4.0% of 500 games</title>"
        in (charts["calibration-overall"])
    )


def test_names_and_notes_from_the_report_are_escaped(client, db):
    script = "<script>alert(1)</script>"
    save_lab_report(
        report(
            [
                {
                    "name": script,
                    "note": f"note {script}",
                    "overall": metrics(0.6, 0.2, 0.7, 100),
                    "established": metrics(0.6, 0.2, 0.7, 100),
                }
            ]
        )
    )
    html = client.get("/lab").content.decode()
    assert script not in html
    assert "note &lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;</h3>" in html
    assert "<title>&lt;script&gt;alert(1)&lt;/script&gt;: predicted" in html


def test_the_page_is_cached_until_a_new_report_is_saved(client, db, django_assert_num_queries):
    first = client.get("/lab").content
    with django_assert_num_queries(0):
        assert client.get("/lab").content == first
    glicko = {"name": "glicko", "note": "", "overall": metrics(0.6, 0.2, 0.7, 100)}
    save_lab_report(report([{**glicko, "established": metrics(0.6, 0.2, 0.7, 100)}]))
    assert SiteStatistic.objects.filter(key=LAB_STATISTIC).exists()
    html = client.get("/lab").content.decode()  # saving bumped the generation
    assert "No evaluation yet." not in html and "Glicko (this site)</h3>" in html


def test_about_links_to_the_lab(client, db):
    html = client.get("/about").content.decode()
    assert '<a href="/lab">rating systems lab</a>' in html


def test_a_site_worse_than_a_coin_flip_says_why_and_what_the_shown_chances_score(client, db):
    glicko = {"name": "glicko", "note": "", "established": metrics(0.66, 0.23, 0.6, 300)}
    store_calibration(3.4, log_loss_before=0.7340, log_loss_after=0.6832)
    young = {**glicko, "overall": metrics(0.7429, 0.26, 0.55, 5000)}
    save_lab_report(report([young]))
    text = " ".join(client.get("/lab").content.decode().split())
    assert "The site's ratings are still settling." in text
    assert "scored a log loss of 0.7429, worse than a coin flip (0.6931)" in text
    assert "corrected on its latest games they would have scored 0.6832" in text

    settled = {**glicko, "overall": metrics(0.6431, 0.22, 0.6, 5000)}
    save_lab_report(report([settled]))
    html = client.get("/lab").content.decode()
    assert "still settling" not in html and "0.6431" in html
