"""Shared by the benchmark commands: describe the machine, append a dated section to the
history and keep the benchmark's row of the summary table in BENCHMARKS.md current."""

from __future__ import annotations

import os
import platform
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "BENCHMARKS.md"
HISTORY = ROOT / "docs" / "benchmarks-history.md"
HISTORY_HEADER = (
    "# Benchmark history\n\n"
    "Every run of the benchmark commands, verbatim, oldest first; the current figure of "
    "each is in [BENCHMARKS.md](../BENCHMARKS.md).\n"
)


@dataclass(frozen=True)
class Figure:
    """A benchmark's row in the summary table that opens BENCHMARKS.md."""

    command: str  # finds the row: its first cell starts with this command in backticks
    what: str
    figure: str
    target: str = ""


def _memory_gib() -> float:
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024 / 1024
    return 0.0


def machine_description() -> str:
    postgres = subprocess.run(
        ["psql", "--version"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return (
        f"Machine: {platform.node()}, {platform.system()} {platform.release()}, "
        f"{os.cpu_count()} cores, {_memory_gib():.0f} GiB; "
        f"Python {platform.python_version()}; {postgres or 'psql not found'}. "
        f"Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC."
    )


def machine_summary() -> str:
    """The machine in a few words, for the summary table."""
    return f"{platform.node()}, {os.cpu_count()} cores, {_memory_gib():.0f} GiB"


def load_line(load_at_start: float) -> str:
    """The 1-minute load average at a run's start and now: how much else used the cores."""
    return (
        f"Load average (1 min): {load_at_start:.1f} at the start, "
        f"{os.getloadavg()[0]:.1f} at the end (the machine may be shared)."
    )


def summary_row(figure: Figure, machine: str, date: str) -> str:
    cells = [f"`{figure.command}`: {figure.what}", figure.figure, figure.target, machine, date]
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def with_summary_row(text: str, command: str, row: str) -> str:
    """BENCHMARKS.md's text with the summary row of `command` replaced by `row`, or with
    `row` added at the end of the first table when the command has none yet."""
    lines = text.split("\n")
    key = f"| `{command}`"
    for index, line in enumerate(lines):
        if line.startswith(key + ":") or line.startswith(key + " "):
            lines[index] = row
            return "\n".join(lines)
    table = [index for index, line in enumerate(lines) if line.startswith("|")]
    if not table:
        raise ValueError("BENCHMARKS.md has no summary table")
    end = table[0]
    while end + 1 < len(lines) and lines[end + 1].startswith("|"):
        end += 1
    lines.insert(end + 1, row)
    return "\n".join(lines)


def append_section(
    title: str,
    lines: list[str],
    figure: Figure | None = None,
    *,
    history: Path = HISTORY,
    summary: Path = BENCHMARKS,
) -> None:
    """Append `## title` and the lines to the history (created with a header if missing)
    and, given the run's figure, rewrite its row of the summary table."""
    if not history.exists():
        history.write_text(HISTORY_HEADER)
    with history.open("a") as out:
        out.write(f"\n## {title}\n\n" + "\n".join(lines) + "\n")
    print(f"appended to {history.name}")
    if figure is None:
        print(f"update this benchmark's row of {summary.name}'s summary table by hand")
        return
    row = summary_row(figure, machine_summary(), f"{datetime.now(UTC):%Y-%m-%d %H:%M}")
    summary.write_text(with_summary_row(summary.read_text(), figure.command, row))
    print(f"updated the `{figure.command}` row of {summary.name}")


def publish(
    title: str, lines: list[str], figure: Figure | None = None, *, print_only: bool = False
) -> None:
    """Print the section (a trial run) or record it (`append_section`)."""
    if print_only:
        print("\n".join([f"## {title}", "", *lines]))
    else:
        append_section(title, lines, figure)
