"""Name reference propagation: when an object was renamed (prefix, suffix, hash,
patch), fields of other objects naming it follow."""
from __future__ import annotations

from . import fieldspec
from .defaults import NameBackRef, gvk_order
from .errors import KustomizeError
from .resmap import ResMap
from .resource import Gvk, Resource


def _same_ending(a: list, b: list) -> bool:
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    diff = len(long_) - len(short)
    if not short:
        return diff == 0
    return all(long_[i + diff] == short[i] for i in range(len(short)))


def _presuf_equal(r: Resource, o: Resource, allow_empty: bool) -> bool:
    if allow_empty:
        return ((not r.prefixes or not o.prefixes or _same_ending(r.prefixes, o.prefixes))
                and (not r.suffixes or not o.suffixes or _same_ending(r.suffixes, o.suffixes)))
    return _same_ending(r.prefixes, o.prefixes) and _same_ending(r.suffixes, o.suffixes)


def _rolebinding_namespaces(res: Resource) -> set:
    """The namespaces of a RoleBinding's ServiceAccount subjects (a blank one is an error)."""
    if res.kind != "RoleBinding":
        return set()
    out = set()
    subjects = res.obj.get("subjects")
    for s in subjects if isinstance(subjects, list) else ():
        if not isinstance(s, dict) or "namespace" not in s or "kind" not in s:
            continue
        if s["kind"] != "ServiceAccount":
            continue
        if not isinstance(s["namespace"], str):
            raise KustomizeError(f'Invalid Input: namespace is blank for resource "{res.cur_id()}"\n')
        out.add(s["namespace"])
    return out


def _reachable(referrer: Resource):
    """Which objects the referrer may name (same namespace, cluster-scoped, or a binding's subject namespaces)."""
    rid = referrer.cur_id()
    if rid.cluster_scoped:
        return lambda r: True
    namespaces = _rolebinding_namespaces(referrer)

    def ok(r: Resource) -> bool:
        cid = r.cur_id()
        return cid.cluster_scoped or cid.ns_equals(rid) or r.namespace in namespaces
    return ok


class _Candidates:
    """The referral candidates of one referrer, looked up by an earlier name."""

    def __init__(self, by_prev_name: dict, reachable, resmap: ResMap) -> None:
        self.by_prev_name = by_prev_name
        self.reachable = reachable
        self.resmap = resmap

    def named(self, old: str) -> list[Resource]:
        return [r for r in self.by_prev_name.get(old, ()) if self.reachable(r)]

    def all(self) -> list[Resource]:
        return [r for r in self.resmap.resources if self.reachable(r)]


class _Fixer:
    def __init__(self, referrer: Resource, target: NameBackRef, path: str, candidates: "_Candidates") -> None:
        self.referrer = referrer
        self.target = target
        self.path = path
        self.candidates = candidates

    def select(self, old: str, candidates: list[Resource], identical) -> Resource | None:
        target = self.target
        cands = [r for r in candidates if any(i.name == old for i in r.prev_ids)]
        cands = [r for r in cands if any(i.gvk.selected_by(target.group, target.version, target.kind) for i in r.prev_ids)]
        if self.path.endswith("roleRef/name"):
            ref = self.referrer.obj.get("roleRef")
            if isinstance(ref, dict) and ref.get("apiGroup") is not None and ref.get("kind") is not None:
                g, k = str(ref.get("apiGroup")), str(ref.get("kind"))
                cands = [r for r in cands if any(i.gvk.selected_by(group=g, kind=k) for i in r.prev_ids)]
        rid = self.referrer.cur_id()
        if not rid.cluster_scoped:
            cands = [r for r in cands if r.cur_id().cluster_scoped or r.kind == "ServiceAccount" or rid.ns_equals(r.cur_id())]
        if len(cands) == 1:
            return cands[0]
        cands = [r for r in cands if _presuf_equal(r, self.referrer, True)]
        if len(cands) > 1:
            cands = [r for r in cands if _presuf_equal(r, self.referrer, False)]
        if len(cands) == 1:
            return cands[0]
        if not cands:
            return None
        if identical(cands):
            return cands[0]
        ids = ", ".join(str(r.cur_id()) for r in cands)
        raise KustomizeError(
            f"updating name reference in '{self.path}' field of '{self.referrer.cur_id()}': "
            f"considering field '{self.path}' of object {self.referrer.cur_id()}: found multiple possible referrals: {ids}"
            + _referral_report(self.referrer, cands))

    def scalar(self, container, key) -> None:
        value = container[key]
        ref = self.select(value, self.candidates.named(value), lambda rs: len({r.name for r in rs}) == 1)
        if ref is None:
            return
        ref.refby.append(self.referrer.cur_id())
        if ref.name != value:
            container[key] = ref.name

    def mapping(self, node: dict) -> None:
        if "name" not in node:
            raise KustomizeError("path config error; no 'name' field in node")
        old = node.get("name")
        if not isinstance(old, str):
            return
        candidates = self.candidates.named(old)
        if "namespace" in node:
            ns = node.get("namespace")
            every = self.candidates.all()
            by_org = [r for r in every if r.org_id().namespace == ns]
            candidates = by_org or [r for r in every if r.namespace == ns]
        ref = self.select(old, candidates, lambda rs: len({(r.name, r.namespace) for r in rs}) == 1)
        if ref is None:
            return
        ref.refby.append(self.referrer.cur_id())
        if ref.name == old and not ref.namespace:
            return
        node["name"] = ref.name
        if ref.namespace:
            node["namespace"] = ref.namespace

    def __call__(self, container: dict, key: str) -> None:
        value = container.get(key)
        if value is None:
            return
        if isinstance(value, str):
            self.scalar(container, key)
        elif isinstance(value, dict):
            self.mapping(value)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, str):
                    self.scalar(value, i)
                elif isinstance(item, dict):
                    self.mapping(item)


def fix_name_references(resmap: ResMap, backrefs: list[NameBackRef]) -> None:
    by_prev_name: dict = {}
    for r in resmap:
        for name in {i.name for i in r.prev_ids}:
            by_prev_name.setdefault(name, []).append(r)
    candidates_cache: dict[int, _Candidates] = {}
    # Kustomize keeps its name references sorted by group/version/kind and fixes them in that order
    for backref in sorted(backrefs, key=gvk_order):
        for spec in backref.referrers:
            for res in list(resmap):
                if not spec.selects(res.org_id().gvk):
                    continue
                if id(res) not in candidates_cache:
                    candidates_cache[id(res)] = _Candidates(by_prev_name, _reachable(res), resmap)
                fixer = _Fixer(res, backref, spec.path, candidates_cache[id(res)])
                fieldspec.apply(res.obj, fieldspec.FieldSpec(spec.path, spec.group, spec.version, spec.kind, False), fixer)


def _referral_report(referrer: Resource, candidates: list[Resource]) -> str:
    """Kustomize's account of an ambiguous reference: the referrer and each candidate as
    YAML, with the annotations it keeps a resource's renames in."""
    text = "\n\n**** Too many possible referral targets to referrer:\n" + _with_build_annotations(referrer)
    for i, candidate in enumerate(candidates):
        text += f"\n--- possible referral {i}:\n" + _with_build_annotations(candidate)
    return text + "\n"


def _with_build_annotations(res: Resource) -> str:
    import copy

    from .printing import render
    from .resource import NOT_A_NAMESPACE

    obj = copy.deepcopy(res.obj)
    annotations: dict = {}
    if res.prefixes:
        annotations["internal.config.kubernetes.io/prefixes"] = ",".join(res.prefixes)
    if res.suffixes:
        annotations["internal.config.kubernetes.io/suffixes"] = ",".join(res.suffixes)
    if res.prev_ids:
        annotations["internal.config.kubernetes.io/previousKinds"] = ",".join(i.gvk.kind for i in res.prev_ids)
        annotations["internal.config.kubernetes.io/previousNames"] = ",".join(i.name for i in res.prev_ids)
        annotations["internal.config.kubernetes.io/previousNamespaces"] = ",".join(
            "_non_namespaceable_" if i.cluster_scoped or i.namespace == NOT_A_NAMESPACE else (i.namespace or "default")
            for i in res.prev_ids)
    if annotations:
        meta = obj.setdefault("metadata", {})
        meta["annotations"] = {**(meta.get("annotations") or {}), **annotations}
    return render([obj])
