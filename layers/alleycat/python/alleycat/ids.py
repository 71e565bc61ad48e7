"""Race ids: ULIDs (Crockford base32), which sort by creation time as strings."""

import os
import time

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def new_race_id(now_ms: int | None = None) -> str:
    value = ((now_ms if now_ms is not None else time.time_ns() // 1_000_000) << 80) | int.from_bytes(os.urandom(10), "big")
    return "".join(_ALPHABET[(value >> shift) & 31] for shift in range(125, -1, -5))
