"""Typed readers for settings from the environment that fail loudly on bad values."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


class SettingError(ValueError):
    """An environment variable holds a value its setting cannot use."""


def _read(name: str, default: T, convert: Callable[[str], T]) -> T:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return convert(raw.strip())
    except ValueError as error:
        raise SettingError(f"{name}={raw!r}: {error}") from None


def env_str(name: str, default: str) -> str:
    return _read(name, default, str)


def env_int(name: str, default: int) -> int:
    return _read(name, default, int)


def env_float(name: str, default: float) -> float:
    return _read(name, default, float)


def _to_bool(raw: str) -> bool:
    lowered = raw.lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ValueError("expected one of 1/0, true/false, yes/no, on/off")


def env_bool(name: str, default: bool) -> bool:
    return _read(name, default, _to_bool)


def _items(raw: str) -> list[str]:
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_list(name: str, default: list[str]) -> list[str]:
    return _read(name, default, _items)


def env_float_list(name: str, default: list[float]) -> list[float]:
    return _read(name, default, lambda raw: [float(item) for item in _items(raw)])


def install_secret_key(path: Path) -> str:
    """This install's own random secret key, created (readable by its owner only) at the
    first start and kept at `path`."""
    if not path.exists():
        # Written whole under another name and linked into place, so that a process
        # starting at the same moment never reads a partial key.
        temporary = path.with_name(f"{path.name}.{os.getpid()}")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(secrets.token_urlsafe(50))
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass  # another process was first: use its key
        finally:
            temporary.unlink()
    return path.read_text().strip()
