"""Reading a scenario file (built in, or a club's upload): size limit and TOML syntax, with
errors that name the file and the line. Each ruleset validates the fields itself."""
from __future__ import annotations

import tomllib
from typing import Any


def read_toml(text: str, source: str, max_bytes: int, error: type[Exception]) -> dict[str, Any]:
    if len(text.encode()) > max_bytes:
        raise error(f"{source}: file larger than {max_bytes // 1024} KiB")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{source}: TOML syntax: {exc}") from None
