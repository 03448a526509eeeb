"""The production static files path: collectstatic with whitenoise's manifest storage."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_collectstatic_builds_a_manifest_with_compressed_files(tmp_path):
    static_root = tmp_path / "static"
    environment = {
        **os.environ,
        "DEBUG": "0",
        "STATIC_ROOT": str(static_root),
        "VAR_DIR": str(tmp_path / "var"),
    }
    subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "collectstatic", "--no-input", "-v0"],
        env=environment,
        check=True,
        timeout=300,
    )
    manifest = json.loads((static_root / "staticfiles.json").read_text())
    css = manifest["paths"]["css/site.css"]
    assert css != "css/site.css"  # hashed name, cacheable forever
    assert (static_root / css).exists()
    assert (static_root / f"{css}.gz").exists()
