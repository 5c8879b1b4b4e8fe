"""A patch to `/scale` whose body names another kind, as kube-apiserver's patch handler takes it.

Clients such as Ansible's `k8s_scale` send `{"kind": "Deployment", "apiVersion": "apps/v1",
"spec": {"replicas": 3}}` to `deployments/NAME/scale`. The patch applies to the autoscaling/v1
Scale, and what happens to the kind depends on the patch type:

- strategic merge: the patched map is copied into the versioned Scale struct, where kind and
  apiVersion are mere strings, and the struct's Go type decides the conversion: the kind is
  overwritten and the patch succeeds;
- JSON merge and JSON patch: the patched JSON is decoded, and the decoder builds the type its
  kind/apiVersion name (a Deployment), which then cannot convert to a Scale: a 422 quoting the
  patched JSON, with the converter's `unknown conversion` (or the scheme's `no kind ... is
  registered` for a kind the group-version does not have).
"""
from __future__ import annotations

SCALE_KIND, SCALE_API_VERSION = "Scale", "autoscaling/v1"


def decoded(patch_type: str, current: dict, patch: bytes, patched) -> object:
    """The Scale a patch of `patch_type` produced from `current`, or raise kube-apiserver's
    error for a kind the decoder cannot turn into a Scale."""
    from kubelite.server.patching import STRATEGIC_PATCH

    if not isinstance(patched, dict):
        return patched
    if patch_type == STRATEGIC_PATCH:
        from kubelite.server import patchcheck

        problem = patchcheck.conversion_problem(patched, _SCALE)  # copied into the Scale struct
        if problem:
            from kubelite.server.handlers.jsonbody import loads

            raise patchcheck.invalid_patch(patchcheck.go_print(loads(patch)), problem)
        return {**patched, "kind": SCALE_KIND, "apiVersion": SCALE_API_VERSION}
    from kubelite.server import patchcheck
    from kubelite.server.handlers.jsonbody import loads
    from kubelite.server.patching import JSON_PATCH

    kind, api_version = patched.get("kind"), patched.get("apiVersion")
    doc = loads(patch)
    rendered = patchcheck.json_patch_rendering(patched, doc) if patch_type == JSON_PATCH else \
        patchcheck.merge_rendering(patched, doc, current)
    if (kind, api_version) == (SCALE_KIND, SCALE_API_VERSION) or not isinstance(kind, str) or not kind:
        # decoded into the Scale: a wrongly typed field is the decoder's 422
        problem = patchcheck.decode_problem(rendered, _SCALE)
        if problem:
            raise patchcheck.invalid_patch(patchcheck.go_compact(rendered), problem)
        return patched
    raise patchcheck.invalid_patch(patchcheck.go_compact(rendered), _conversion_error(kind, api_version))


class _ScaleType:
    """The endpoint's Go type, as patchcheck reads a resource: autoscaling/v1 Scale."""
    api_version, kind, crd = SCALE_API_VERSION, SCALE_KIND, None


_SCALE = _ScaleType()


def _conversion_error(kind, api_version) -> str:
    """What the scheme says when the decoded kind is not a Scale."""
    from kubelite.server.resources import builtin_resources

    group, _, version = str(api_version or "").rpartition("/")
    if any(b.group == group and b.version == version and b.kind == kind for b in builtin_resources()):
        return f"converting ({version}.{kind}) to (autoscaling.Scale): unknown conversion"
    return (f'no kind "{kind}" is registered for version "{api_version}" in scheme '
            '"pkg/api/legacyscheme/scheme.go:30"')
