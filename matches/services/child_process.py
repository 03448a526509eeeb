"""A child process that answers its parent through a pipe: a file import's reading
process (matches.services.import_process) is one.

Free of Django on purpose: the child starts as a fresh interpreter ("spawn", never a
fork of a process holding database connections).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from types import TracebackType
from typing import Any, Self

SPAWN = multiprocessing.get_context("spawn")
# How long the parent waits for a child whose pipe closed to exit.
LIVENESS_SECONDS = 1.0


class ChildProcess:
    """Runs `target(*args, replies)` in a daemonic child, `replies` being the pipe end it
    sends its messages on. As a context manager: entering starts the child, leaving
    stops it, however the block ends."""

    # What `reply` raises when the child is gone, and what its message calls the child.
    failure: type[Exception] = RuntimeError
    label = "child"

    def __init__(self, target: Callable[..., None], args: tuple[Any, ...], *, name: str) -> None:
        self._replies, self._child_replies = SPAWN.Pipe(duplex=False)
        self._process = SPAWN.Process(
            target=target, args=(*args, self._child_replies), name=name, daemon=True
        )

    def __enter__(self) -> Self:
        self._process.start()
        self._child_replies.close()  # the child holds its own end
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback_: TracebackType | None,
    ) -> None:
        if self._process.is_alive():
            self._process.terminate()
        self._process.join()
        self._replies.close()

    def reply(self) -> tuple:
        """The child's next message."""
        try:
            # The child holds the only other end: if it dies, this ends at once.
            return self._replies.recv()
        except (EOFError, OSError):  # OSError: it died in the middle of a message
            raise self.died() from None

    def died(self) -> Exception:
        self._process.join(timeout=LIVENESS_SECONDS)
        return self.failure(f"the {self.label} process died (exit code {self._process.exitcode})")
