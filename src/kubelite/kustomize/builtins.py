"""Built-in plugins configured through the `generators:` and `transformers:` fields."""
from __future__ import annotations

from . import generators, patches, transformers
from .errors import KustomizeError
from .fieldspec import specs_from
from .sorting import sort_resources


def run_generator(config: dict, target, ra) -> list:
    kind = config.get("kind")
    if kind in ("ConfigMapGenerator", "SecretGenerator"):
        args = {k: v for k, v in config.items() if k not in ("apiVersion", "kind", "metadata")}
        meta = config.get("metadata") or {}
        args.setdefault("name", meta.get("name"))
        if meta.get("namespace"):
            args.setdefault("namespace", meta.get("namespace"))
        return [generators.generate(args, kind[:-len("Generator")], target.loader, None)]
    raise KustomizeError(f"unable to load generator plugin {config.get('apiVersion')}/{kind}: only builtin plugins are supported")


def run_transformer(config: dict, target, ra) -> None:
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
    elif kind == "SortOrderTransformer":
        sort_resources(rm, config.get("sortOptions") or {"order": "fifo"})
    elif kind == "HashTransformer":
        pass
    else:
        raise KustomizeError(f"unable to load transformer plugin {config.get('apiVersion')}/{kind}: only builtin plugins are supported")
