"""Write src/kubelite/server/data/bootstrap_policy_stored.json: the bootstrap ClusterRoles and
ClusterRoleBindings (server/data/bootstrap_policy.json) as the API server stores them when it
creates them on a new store, each one's request taken through the whole create path.

Usage: python tools/gen_bootstrap_stored.py

A first `kubelite serve` writes these objects before /readyz answers ok, as kube-apiserver's
rbac/bootstrap-roles post-start hook. Taking each through the create path (checks, defaults,
admission, field management, encoding) was ~30 ms of a first start, for a result that is the
same every time but for the uid and the time; so on a new store the server writes this result
with a new uid and the time of the start (server/auth/bootstrap.py). tests/server/test_rbac.py
checks that the file is what this script writes now: rerun it after a change to the policy or to
what a create stores.

The file is a JSON list, one stored object a line, in the order the create path writes them
(the roles, then the bindings), with UID and TIME where each write puts its own.
"""
from __future__ import annotations

import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "src/kubelite/server/data/bootstrap_policy_stored.json"
UID = "00000000-0000-4000-8000-000000000000"  # replaced: a uuid4 of this form, so it sorts nowhere special
TIME = "2001-02-03T04:05:06Z"


def stored_objects() -> list[dict]:
    """Each bootstrap object as the create path stores it on a new store, uid and times set to
    UID and TIME (a fake clock's)."""
    import datetime
    from unittest import mock

    from kubelite.server.auth import bootstrap
    from kubelite.server.clock import FakeClock
    from kubelite.server.core import APIServer
    from kubelite.server.resources import Registry
    from kubelite.server.storage import open_store

    start = datetime.datetime(2001, 2, 3, 4, 5, 6, tzinfo=datetime.timezone.utc).timestamp()
    store = open_store("memory://")
    try:
        api = APIServer(store, Registry(), clock=FakeClock(start))
        with mock.patch("kubelite.uuids.uuid4", return_value=UID):  # the uid each create gives
            bootstrap.ensure_policy(api, prepared=False)
        out = []
        for resource, name in bootstrap.written():
            kv = store.get(f"/registry/{bootstrap.GROUP}/{resource}/{name}")
            out.append(json.loads(kv.value))
        return out
    finally:
        store.close()


def render() -> str:
    lines = [json.dumps(obj, separators=(",", ":")) for obj in stored_objects()]
    for line in lines:
        # The server sets these three by position (bootstrap._stamp): each must be where it looks.
        assert line.count(UID) == 1 and line.count(TIME) == 2, line
    return "[\n" + ",\n".join(lines) + "\n]\n"


def main() -> int:
    OUT.write_text(render(), encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
