"""The local broker for a machine without one (`make run`, `make test`): kombu's
filesystem transport, with messages published atomically.

kombu's own `filesystem.Channel._put` creates the message file and only then writes it,
while `_get` takes any file whose name matches, without its lock, and deletes it before
decoding it: a worker polling in between reads an empty message and the task is lost. A
busy machine widens that window. Here a message is written under a name `_get` ignores
and renamed into place once complete (a rename within one folder is atomic), so a
reader sees a whole message or none.
"""

from __future__ import annotations

import os
import uuid
from time import monotonic
from typing import Any

from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:
        """Put `payload` onto `queue`, under the file name kombu's reader looks for."""
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        # No dot before the queue name: `_get` matches on what follows the first dot.
        partial = os.path.join(self.data_folder_out, f"writing-{uuid.uuid4()}")
        try:
            with open(partial, "wb") as message:
                message.write(str_to_bytes(dumps(payload)))
            os.replace(partial, os.path.join(self.data_folder_out, name))
        except OSError as error:
            raise filesystem.ChannelError(f"Cannot add a message to {queue!r}") from error


class Transport(filesystem.Transport):
    Channel = Channel
