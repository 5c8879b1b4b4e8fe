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


def configure_transformer(raw: dict, target):
    """Configure a builtin transformer from its config resource; returns the function
    that runs it over an accumulator. Configuration errors name the plugin, as
    Kustomize's plugin loader does."""
    from .resource import Resource

    config = canonical_keys(raw)
    kind = config.get("kind")
    try:
        return _configure(config, raw, target)
    except KustomizeError as exc:
        if kind in _BUILTIN_TRANSFORMERS:
            raise KustomizeError(f"plugin {Resource(raw).cur_id()} fails configuration: {exc}") from None
        raise


_BUILTIN_TRANSFORMERS = frozenset("""NamespaceTransformer PrefixSuffixTransformer PrefixTransformer SuffixTransformer
    LabelTransformer AnnotationsTransformer ImageTagTransformer ReplicaCountTransformer PatchTransformer
    PatchStrategicMergeTransformer PatchJson6902Transformer ReplacementTransformer""".split())


def _configure(config: dict, raw: dict, target):
    kind = config.get("kind")
    specs = specs_from(config.get("fieldSpecs"), f"{kind}.fieldSpecs")
    if kind == "NamespaceTransformer":
        ns = (config.get("metadata") or {}).get("namespace") or ""
        return lambda rm: transformers.namespace(rm, ns, specs, config.get("setRoleBindingSubjects") or "",
                                                 bool(config.get("unsetOnly")))
    if kind == "PrefixSuffixTransformer":
        def prefix_suffix(rm):
            if config.get("prefix"):
                transformers.prefix_suffix(rm, str(config["prefix"]), "", specs)
            if config.get("suffix"):
                transformers.prefix_suffix(rm, "", str(config["suffix"]), specs)
        return prefix_suffix
    if kind == "PrefixTransformer":
        return lambda rm: transformers.prefix_suffix(rm, str(config.get("prefix") or ""), "", specs)
    if kind == "SuffixTransformer":
        return lambda rm: transformers.prefix_suffix(rm, "", str(config.get("suffix") or ""), specs)
    if kind == "LabelTransformer":
        return lambda rm: transformers.add_map_entries(rm, config.get("labels") or {}, specs)
    if kind == "AnnotationsTransformer":
        return lambda rm: transformers.add_map_entries(rm, config.get("annotations") or {}, specs)
    if kind == "ImageTagTransformer":
        return lambda rm: transformers.images(rm, config.get("imageTag") or {}, specs)
    if kind == "ReplicaCountTransformer":
        return lambda rm: transformers.replicas(rm, config.get("replica") or {}, specs)
    if kind == "PatchTransformer":
        from kubelite.manifest import to_yaml

        plan = patches.configure_patch(config, target.loader, to_yaml(raw))
        return lambda rm: plan.apply(rm, target.schemas())
    if kind == "PatchStrategicMergeTransformer":
        if not config.get("paths") and not config.get("patches"):
            raise KustomizeError("empty file path and empty patch content")
        loaded = patches.load_smp_entries(config.get("paths") or [], target.loader)
        if config.get("patches"):
            loaded += patches._docs(str(config["patches"]))
        if not loaded:
            raise KustomizeError(f"patch appears to be empty; files={_go_list(config.get('paths') or [])}, "
                                 f"Patch={config.get('patches') or ''}")
        return lambda rm: patches.patches_strategic_merge(rm, loaded, target.schemas())
    if kind == "PatchJson6902Transformer":
        entry = {"target": config.get("target"), "path": config.get("path"), "patch": config.get("jsonOp")}
        plan = patches.configure_json6902(entry, target.loader)
        return plan.apply
    if kind == "ReplacementTransformer":
        from . import replacements

        loaded = replacements.load(config.get("replacements") or [], target.loader)
        return lambda rm: replacements.run(rm, loaded)
    if kind in ("SortOrderTransformer", "HashTransformer"):
        raise KustomizeError(f"unable to load builtin {kind}.builtin.[noGrp]")
    raise KustomizeError(f"unable to load transformer plugin {config.get('apiVersion')}/{kind}: "
                         "only builtin plugins are supported")


def _go_list(items: list) -> str:
    return "[" + " ".join(str(i) for i in items) + "]"
