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
    cloud kubernetesService serviceAccount projectId value targetFilePath selector filePathPosition""".split()}
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


# Kustomize v5.5's builtin plugins, by role (SortOrderTransformer is deliberately not one).
GENERATOR_KINDS = frozenset("ConfigMapGenerator SecretGenerator IAMPolicyGenerator HelmChartInflationGenerator".split())
TRANSFORMER_KINDS = frozenset("""AnnotationsTransformer HashTransformer ImageTagTransformer LabelTransformer
    NamespaceTransformer PatchJson6902Transformer PatchStrategicMergeTransformer PatchTransformer
    PrefixSuffixTransformer PrefixTransformer SuffixTransformer ReplacementTransformer ReplicaCountTransformer
    ValueAddTransformer""".split())


_YAML_CONFIGURED = frozenset({"PrefixTransformer", "SuffixTransformer", "PrefixSuffixTransformer"})


def load_plugin(res, target, role: str):
    """Kustomize's plugin loader for one config resource of `generators:`, `transformers:`
    or `validators:`: only builtin plugins (apiVersion `builtin`), configured first, then
    checked for the role asked. A generator is returned as a function making resources,
    a transformer as a function over a ResMap."""
    raw = res.obj
    gvk = res.gvk
    if gvk.group or gvk.version != "builtin":
        raise KustomizeError(f"external plugins disabled; unable to load external plugin '{gvk.kind}'")
    if gvk.kind not in GENERATOR_KINDS and gvk.kind not in TRANSFORMER_KINDS:
        raise KustomizeError(f"unable to load builtin {gvk}")
    if res.yaml_errors:
        raise KustomizeError(f"marshalling yaml from res {res.org_id()}: " + unmarshal_errors(res.yaml_errors))
    # most builtins read their config with encoding/json (field names in any case); the
    # prefix and suffix ones with go-yaml, which wants the names exactly
    config = raw if gvk.kind in _YAML_CONFIGURED else canonical_keys(raw)
    try:
        if config is not raw:
            _check_types(gvk.kind, config)
        else:
            from . import plugintypes

            plugintypes.check_yaml(gvk.kind, raw)
        if gvk.kind in GENERATOR_KINDS:
            plugin = _configure_generator(config, target)
        else:
            plugin = _configure(config, raw, target)
    except KustomizeError as exc:
        raise KustomizeError(f"plugin {res.cur_id()} fails configuration: {exc}") from None
    if gvk.kind not in (GENERATOR_KINDS if role == "generator" else TRANSFORMER_KINDS):
        raise KustomizeError(f"plugin {res.org_id()} not a {role}")
    return plugin


def _check_types(kind: str, config: dict) -> None:
    from . import plugintypes

    try:
        plugintypes.check(kind, config)
    except KustomizeError as exc:
        if kind == "NamespaceTransformer":
            raise KustomizeError(f"unmarshalling NamespaceTransformer config: {exc}") from None
        raise


def unmarshal_errors(errors: list[str]) -> str:
    """yaml.v3's text for a failed decode: one indented line per problem."""
    return "yaml: unmarshal errors:\n" + "\n".join(f"  {line}" for line in errors)


def _configure_generator(config: dict, target):
    kind = config.get("kind")
    if kind == "HelmChartInflationGenerator":
        if not target.state.helm.enabled:  # the configuration error kubectl gives without --enable-helm
            raise KustomizeError("must specify --enable-helm")
        from .helm import inflate

        return lambda: inflate(target.state.helm, config, {})
    if kind == "IAMPolicyGenerator":
        return lambda: iam_policy_service_accounts(config)
    args = {k: v for k, v in config.items() if k not in ("apiVersion", "kind", "metadata")}
    meta = config.get("metadata") if isinstance(config.get("metadata"), dict) else {}
    if not args.get("name"):
        args["name"] = meta.get("name")
    if not args.get("namespace") and meta.get("namespace"):
        args["namespace"] = meta.get("namespace")
    return lambda: [generators.generate(args, kind[:-len("Generator")], target.loader, None)]


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


def _configure(config: dict, raw: dict, target):
    kind = config.get("kind")
    specs = specs_from(config.get("fieldSpecs"), f"{kind}.fieldSpecs")
    if kind == "NamespaceTransformer":
        ns = (config.get("metadata") or {}).get("namespace") or ""
        transformers.check_subjects_mode(config.get("setRoleBindingSubjects") or "")
        return lambda rm: transformers.namespace(rm, ns, specs, config.get("setRoleBindingSubjects") or "",
                                                 bool(config.get("unsetOnly")))
    if kind in ("PrefixSuffixTransformer", "PrefixTransformer", "SuffixTransformer") and config.get("fieldSpecs") is None:
        raise KustomizeError("fieldSpecs is not expected to be nil")
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
    if kind == "HashTransformer":
        return _hash_names
    if kind == "ValueAddTransformer":
        from . import valueadd

        targets = valueadd.configure(config, target.loader)
        return lambda rm: valueadd.run(rm, targets)
    raise KustomizeError(f"unable to load builtin {kind}")


def _hash_names(rm) -> None:
    """HashTransformer: a content hash appended to every generated name that asks for one.
    The mark stays, so the build's own hashing step appends another (as Kustomize does)."""
    from .hashing import content_hash

    for res in rm:
        if res.needs_hash:
            res.store_previous_id()
            res.name = f"{res.name}-{content_hash(res.obj)}"


def _go_list(items: list) -> str:
    return "[" + " ".join(str(i) for i in items) + "]"
