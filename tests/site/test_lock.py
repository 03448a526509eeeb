"""requirements.lock, what `make install` installs from, pins every dependency that
pyproject.toml names (runtime and dev) at a version it allows, each with its hashes: a
dependency added without `make lock` fails here rather than on a machine that lacks it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PIN = re.compile(
    r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+) \\\n((?:\s+--hash=sha256:[0-9a-f]{64}.*\n)+)", re.M
)


def test_the_lock_pins_every_dependency_in_pyproject_with_hashes():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    named = [*project["dependencies"], *project["optional-dependencies"]["dev"]]
    lock = (ROOT / "requirements.lock").read_text()
    pins = {canonicalize_name(name): version for name, version, _ in PIN.findall(lock)}
    # Every pinned line carries hashes (a pin without any would not match PIN).
    assert len(pins) == len(re.findall(r"^\S+==", lock, re.M))
    for requirement in map(Requirement, named):
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} is not in requirements.lock: run `make lock`"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"requirements.lock pins {name} {pins[name]}, outside {requirement.specifier}"
        )
