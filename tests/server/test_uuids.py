"""kubelite.uuids.uuid4: the text str(uuid.uuid4()) writes (objects' uids, Audit-Id, the leader's
identity), without the uuid module."""
from __future__ import annotations

import re
import uuid

from kubelite.uuids import uuid4


def test_uuid4_is_a_random_version_4_uuid_in_its_canonical_text():
    made = [uuid4() for _ in range(200)]
    for text in made:
        parsed = uuid.UUID(text)
        assert str(parsed) == text and re.fullmatch(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", text)
        assert parsed.version == 4 and parsed.variant == uuid.RFC_4122
    assert len(set(made)) == len(made)


def test_the_leaders_identity_is_the_host_name_and_a_uuid():
    import socket

    from kubelite.server.controllers.leader import new_identity

    host, _, tail = new_identity().rpartition("_")
    assert host == socket.gethostname() and uuid.UUID(tail).version == 4
