"""`apply --server-side` sends each object as an apply patch and reads nothing first, as kubectl
does: no GET of the objects and none of the LISTs client-side apply makes of a kind with many
objects (client-side apply needs the live objects; the server merges an apply patch itself).

Runs against `kubelite serve` (objects are written side by side only over HTTP), counting the
dynamic client's calls."""
from __future__ import annotations

from test_apply_listed import Counting

from kubelite.apply.engine import PREFETCH_MIN_OBJECTS


def configmap(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"v": "1"}}


def test_server_side_apply_reads_nothing_before_its_patches(served):
    from kubelite.apply.engine import ApplyOptions
    from kubelite.apply.serverside import SERVER_SIDE_MANAGER, ServerSideApplier
    from kubelite.client.dynamic import Session
    from kubelite.client.kubeconfig import Overrides
    from kubelite.manifest import Manifest

    assert served.kubelite("create", "namespace", "ssa-reads").returncode == 0
    objs = [configmap(f"cm-{i}") for i in range(PREFETCH_MIN_OBJECTS + 2)]
    with Session.open(Overrides(kubeconfig=str(served.kubeconfig))) as session:
        counting = session._client = Counting(session.client)
        applier = ServerSideApplier(session, ApplyOptions(namespace="ssa-reads", field_manager=SERVER_SIDE_MANAGER))
        result = applier.run(applier.prepare([Manifest(o, "f.yaml", i, 1) for i, o in enumerate(objs)]))
    assert not result.errors, result.errors
    assert [(o.verb, o.obj["metadata"]["name"]) for o in result.outcomes] == \
        [("serverside-applied", o["metadata"]["name"]) for o in objs]
    assert (counting.lists, counting.gets) == (0, 0)
    listed = served.kubelite("get", "configmaps", "-n", "ssa-reads", "-o", "name")
    assert set(listed.stdout.split()) >= {f"configmap/{o['metadata']['name']}" for o in objs}
