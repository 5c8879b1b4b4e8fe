"""Random (version 4) UUIDs as text, as str(uuid.uuid4()) writes them.

The uuid module's import (with platform, ~2 ms) was paid by the first object a command created
(every object's metadata.uid), by each response's Audit-Id and by the controllers' leader
identity; what they need of it is sixteen random bytes with the version and variant bits set.
"""
from __future__ import annotations

import os


def uuid4() -> str:
    raw = bytearray(os.urandom(16))
    raw[6] = raw[6] & 0x0F | 0x40  # version 4
    raw[8] = raw[8] & 0x3F | 0x80  # the RFC 4122 variant
    text = raw.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"
