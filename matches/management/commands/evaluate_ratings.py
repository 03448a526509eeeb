from datetime import UTC, datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from matches.services.evaluation import DEFAULT_SYSTEMS, evaluate, save_lab_report


def iso_moment(text: str) -> datetime:
    """An ISO date or date-time; without an offset it is UTC."""
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _number(value: float | None, digits: int = 4) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def format_report(report: dict[str, Any]) -> list[str]:
    """A lab report as text: per system, the scores and the calibration table."""
    lines = [
        f"{report['games']:,} games replayed in time order"
        + (f" since {report['since']}" if report["since"] else "")
        + f" ({report['excluded_games']:,} skipped: hidden or cheating players)"
        f" in {report['seconds']:.1f} s; every game predicted before it is learned.",
        f"established: both ratings have at least {report['established_min_games']} earlier games.",
    ]
    for system in report["systems"]:
        lines += ["", f"== {system['name']}", f"   {system['note']}"]
        lines.append(f"   {'games':<12}{'count':>10}{'log loss':>10}{'Brier':>9}{'accuracy':>10}")
        for label in ("overall", "established"):
            scores = system[label]
            lines.append(
                f"   {label:<12}{scores['games']:>10,}{_number(scores['log_loss']):>10}"
                f"{_number(scores['brier']):>9}{_number(scores['accuracy']):>10}"
            )
        lines.append(f"   {'calibration':<12}{'games':>10}{'predicted':>10}{'observed':>9}")
        for row in system["overall"]["calibration"]:
            lines.append(
                f"   {row['low']:.1f}-{row['high']:.1f}{'':<5}{row['games']:>10,}"
                f"{_number(row['predicted'], 3):>10}{_number(row['observed'], 3):>9}"
            )
    return lines


class Command(BaseCommand):
    help = (
        "Replay the stored matches through several rating systems, predicting each game "
        "before learning it; print log loss, Brier score, accuracy and calibration per "
        "system and save the report for the lab page."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--systems",
            default=",".join(DEFAULT_SYSTEMS),
            help=f"comma-separated, from {', '.join(DEFAULT_SYSTEMS)} (default: all)",
        )
        parser.add_argument(
            "--since",
            type=iso_moment,
            help="only matches from this ISO date on (ratings start fresh there)",
        )

    def handle(self, *args, systems: str, since: datetime | None, **options) -> None:
        names = [name.strip() for name in systems.split(",") if name.strip()]
        if not names:
            raise CommandError("name at least one system with --systems")
        try:
            report = evaluate(systems=names, since=since)
        except ValueError as error:
            raise CommandError(str(error)) from error
        save_lab_report(report)
        self.stdout.write("\n".join(format_report(report)))
        self.stdout.write("\nsaved as the latest lab report")
