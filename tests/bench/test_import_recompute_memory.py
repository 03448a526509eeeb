"""`make bench` counts the memory of the processes a command starts, not only its own."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.import_recompute import _resident_kb, _tree_resident_kb

# Holds 60 MB, says so on stdout, and ends when its stdin closes (its parent's end).
HOLD_60_MB = "import sys; block = b'x' * 60_000_000; print(flush=True); sys.stdin.read()"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads memory from /proc")
def test_a_command_and_the_process_it_starts_are_summed():
    parent_code = (
        "import subprocess, sys\n"
        "child = subprocess.Popen(\n"
        f"    [sys.executable, '-c', {HOLD_60_MB!r}],\n"
        "    stdin=subprocess.PIPE, stdout=subprocess.PIPE,\n"
        ")\n"
        "child.stdout.readline()\n"
        f"{HOLD_60_MB}\n"
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", parent_code], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        parent.stdout.readline()  # both hold their 60 MB now
        deadline = time.monotonic() + 120  # a bound on the wait, not a measured duration
        while _tree_resident_kb(parent.pid) < 120_000 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _tree_resident_kb(parent.pid) >= 120_000
        assert 60_000 <= _resident_kb(parent.pid) < 100_000
    finally:
        parent.stdin.close()
        parent.wait(timeout=10)
