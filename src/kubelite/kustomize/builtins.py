"""Built-in plugins configured through the `generators:` and `transformers:` fields."""
from __future__ import annotations

from . import generators, patches, transformers
from .errors import KustomizeError
from .fieldspec import specs_from
from .sorting import sort_resources


_CANONICAL = {name.lower(): name for name in """path patch target options paths patches prefix suffix fieldSpecs
    labels annotations imageTag name newName newTag digest tagSuffix replica count jsonOp replacements sortOptions
    kind group version namespace create labelSelector annotationSelector allowNameChange allowKindChange
    setRoleBindingSubjects unsetOnly gvk metadata apiVersion literals files envs env behavior type
    disableNameSuffixHash immutable source targets select reject fieldPaths fieldPath delimiter index
    cloud kubernetesService serviceAccount projectId""".split()}
_OPAQUE = {"labels", "annotations", "patch", "jsonOp", "literals"}


def canonical_keys(value: object) -> object:
    """Plugin configs are read with Go's encoding/json, which matches field names ignoring case."""
    if isinstance(value, list):
        return [canonical_keys(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        name = _CANONICAL.get(key.lower(), key) if isinstance(key, str) else key
        out[name] = item if name in _OPAQUE else canonical_keys(item)
    return out


def run_generator(config: dict, target, ra) -> list:
    config = canonical_keys(config)
    kind = config.get("kind")
    if kind in ("ConfigMapGenerator", "SecretGenerator"):
        args = {k: v for k, v in config.items() if k not in ("apiVersion", "kind", "metadata")}
        meta = config.get("metadata") or {}
        args.setdefault("name", meta.get("name"))
        if meta.get("namespace"):
            args.setdefault("namespace", meta.get("namespace"))
        return [generators.generate(args, kind[:-len("Generator")], target.loader, None)]
    if kind == "IAMPolicyGenerator":
        return iam_policy_service_accounts(config)
    raise KustomizeError(f"unable to load generator plugin {config.get('apiVersion')}/{kind}: only builtin plugins are supported")


def _go_str(value: object) -> str:
    """A config field Go decodes into a string (absent: empty)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def iam_policy_service_accounts(config: dict) -> list:
    """IAMPolicyGenerator: a ServiceAccount bound to a GKE service account through the
    iam.gke.io annotation. Like Kustomize, the object is written as YAML text with the
    values substituted, then read back."""
    from . import yamlv3
    from .resource import Resource

    cloud = _go_str(config.get("cloud"))
    if cloud != "gke":
        raise KustomizeError(f"cloud provider {cloud} not supported yet")
    k8s = config.get("kubernetesService") if isinstance(config.get("kubernetesService"), dict) else {}
    gsa = config.get("serviceAccount") if isinstance(config.get("serviceAccount"), dict) else {}
    text = ("\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  annotations:\n"
            f"    iam.gke.io/gcp-service-account: {_go_str(gsa.get('name'))}@{_go_str(gsa.get('projectId'))}"
            f".iam.gserviceaccount.com\n  name: {_go_str(k8s.get('name'))}\n")
    if _go_str(k8s.get("namespace")):
        text += f"\n  namespace: {_go_str(k8s.get('namespace'))}"
    docs = yamlv3.load_all(text)
    if len(docs) != 1 or not isinstance(docs[0], dict):
        raise KustomizeError("IAMPolicyGenerator: generated service account is not one object")
    return [Resource(docs[0], generated=True)]


def run_transformer(config: dict, target, ra) -> None:
    config = canonical_keys(config)
    kind = config.get("kind")
    rm = ra.resmap
    specs = specs_from(config.get("fieldSpecs"), f"{kind}.fieldSpecs")
    if kind == "NamespaceTransformer":
        ns = (config.get("metadata") or {}).get("namespace") or ""
        transformers.namespace(rm, ns, specs, config.get("setRoleBindingSubjects") or "",
                               bool(config.get("unsetOnly")))
    elif kind == "PrefixSuffixTransformer":
        if config.get("prefix"):
            transformers.prefix_suffix(rm, str(config["prefix"]), "", specs)
        if config.get("suffix"):
            transformers.prefix_suffix(rm, "", str(config["suffix"]), specs)
    elif kind == "PrefixTransformer":
        transformers.prefix_suffix(rm, str(config.get("prefix") or ""), "", specs)
    elif kind == "SuffixTransformer":
        transformers.prefix_suffix(rm, "", str(config.get("suffix") or ""), specs)
    elif kind == "LabelTransformer":
        transformers.add_map_entries(rm, config.get("labels") or {}, specs)
    elif kind == "AnnotationsTransformer":
        transformers.add_map_entries(rm, config.get("annotations") or {}, specs)
    elif kind == "ImageTagTransformer":
        transformers.images(rm, config.get("imageTag") or {}, specs)
    elif kind == "ReplicaCountTransformer":
        transformers.replicas(rm, config.get("replica") or {}, specs)
    elif kind == "PatchTransformer":
        patches.patch_transformer(rm, config, target.loader, target.schemas())
    elif kind == "PatchStrategicMergeTransformer":
        if not config.get("paths") and not config.get("patches"):
            meta = config.get("metadata") or {}
            raise KustomizeError(f"plugin {kind}.builtin.[noGrp]/{meta.get('name') or '[noName]'}.[noNs] "
                                 "fails configuration: empty file path and empty patch content")
        loaded = patches.load_smp_entries(config.get("paths") or [], target.loader)
        if config.get("patches"):
            loaded += patches._docs(str(config["patches"]))
        patches.patches_strategic_merge(rm, loaded, target.schemas())
    elif kind == "PatchJson6902Transformer":
        entry = {"target": config.get("target"), "path": config.get("path"), "patch": config.get("jsonOp")}
        patches.patches_json6902(rm, entry, target.loader)
    elif kind == "ReplacementTransformer":
        from . import replacements

        replacements.run(rm, replacements.load(config.get("replacements") or [], target.loader))
    elif kind in ("SortOrderTransformer", "HashTransformer"):
        raise KustomizeError(f"unable to load builtin {kind}.builtin.[noGrp]")
    else:
        raise KustomizeError(f"unable to load transformer plugin {config.get('apiVersion')}/{kind}: only builtin plugins are supported")
