"""Shared by the benchmark commands: describe the machine and append a dated section."""

from __future__ import annotations

import os
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "BENCHMARKS.md"


def machine_description() -> str:
    memory_kb = 0
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal:"):
                memory_kb = int(line.split()[1])
    postgres = subprocess.run(
        ["psql", "--version"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return (
        f"Machine: {platform.node()}, {platform.system()} {platform.release()}, "
        f"{os.cpu_count()} cores, {memory_kb / 1024 / 1024:.0f} GiB; "
        f"Python {platform.python_version()}; {postgres or 'psql not found'}. "
        f"Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC."
    )


def load_line(load_at_start: float) -> str:
    """The 1-minute load average at a run's start and now: how much else used the cores."""
    return (
        f"Load average (1 min): {load_at_start:.1f} at the start, "
        f"{os.getloadavg()[0]:.1f} at the end (the machine may be shared)."
    )


def append_section(title: str, lines: list[str]) -> None:
    """Append `## title` and the lines to BENCHMARKS.md (created with a header if missing)."""
    if not BENCHMARKS.exists():
        BENCHMARKS.write_text(
            "# Benchmarks\n\nWritten by the `make bench*` commands; newest sections last.\n"
        )
    with BENCHMARKS.open("a") as out:
        out.write(f"\n## {title}\n\n" + "\n".join(lines) + "\n")


def publish(title: str, lines: list[str], *, print_only: bool = False) -> None:
    """Print the section (a trial run) or append it to BENCHMARKS.md."""
    if print_only:
        print("\n".join([f"## {title}", "", *lines]))
    else:
        append_section(title, lines)
        print("appended to BENCHMARKS.md")
