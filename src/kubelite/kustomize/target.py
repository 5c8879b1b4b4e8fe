"""One kustomization directory: accumulate its resources, run its generators and
transformers, recursing into bases and components (Kustomize's KustTarget)."""
from __future__ import annotations

import os
from typing import Callable

from . import generators, kustomization as kz, origin as origins, patches, transformers, yamlv3
from .defaults import NameBackRef, TransformerConfig, default_config
from .errors import KustomizeError, MalformedYAMLError
from .fieldspec import FieldSpec, specs_from
from .fs import Loader, find_kustomization
from .openapi import SchemaState
from .resmap import ResMap
from .resource import Resource



# Builtin transformers that never rename, or tell the name index what they renamed (the patch
# transformers): after them the index of a large tree is not rebuilt.
_KEEP_NAME_INDEX = frozenset({
    "PatchStrategicMergeTransformer", "PatchTransformer", "PatchJson6902Transformer", "LabelTransformer",
    "AnnotationsTransformer", "ReplicaCountTransformer", "ImageTagTransformer",
})


class Accumulator:
    """Resources accumulated so far, with the transformer config and vars gathered on the way."""

    def __init__(self) -> None:
        self.resmap = ResMap()
        # empty until the kustomization's own config is merged in (Kustomize's order matters:
        # see defaults.merge_specs)
        self.config: TransformerConfig = TransformerConfig()
        self.vars: list[dict] = []

    def merge_vars(self, new_vars: list, match: bool = True) -> None:
        for v in new_vars:
            if not isinstance(v, dict):
                raise KustomizeError(f"invalid var {v!r}")
            if match:
                from .vars import match_var

                match_var(self.resmap, v)
            for existing in self.vars:
                if existing.get("name") == v.get("name"):
                    raise KustomizeError(f"var '{v.get('name')}' already encountered")
            self.vars.append(v)


def resources_from_text(text: str, source: str) -> list[Resource]:
    """The objects of a file, checked as Kustomize checks them (a kind, and a name unless
    the kind is a list), then `...List` objects with items replaced by their items."""
    try:
        docs = yamlv3.load_resources(text)
    except KustomizeError as exc:
        raise type(exc)(f"{exc} in File: {source}") from None
    kept = []
    for doc, duplicates in docs:
        if doc is None or doc == {}:
            continue
        if not isinstance(doc, dict):
            raise KustomizeError(f"missing Resource metadata in File: {source}")
        _validate_metadata(doc)
        kept.append((doc, duplicates))
    out = []
    for doc, duplicates in kept:
        if isinstance(doc.get("items"), list) and str(doc.get("kind", "")).endswith("List"):
            items = [item for item in doc["items"] if isinstance(item, dict) and item]
            for item in items:
                _validate_metadata(item)
            out.extend(Resource(item) for item in items)
            continue
        out.append(Resource(doc, yaml_errors=duplicates))
    return out


def _validate_metadata(doc: dict) -> None:
    from .resource import scalar_text

    kind = scalar_text(doc.get("kind"))
    if not kind:
        raise KustomizeError(f"missing kind in object {_go_resource_meta(doc)}")
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    if not kind.endswith("List") and not scalar_text(meta.get("name")):
        raise KustomizeError(f"missing metadata.name in object {_go_resource_meta(doc)}")


def _go_resource_meta(doc: dict) -> str:
    """Go's %v of kyaml's ResourceMeta: {{apiVersion kind} {{name namespace} labels annotations}}."""
    from .transformers import _stringify

    def text(value: object) -> str:
        return "" if value is None or isinstance(value, (dict, list)) else _stringify(value)

    def go_map(value: object) -> str:
        pairs = value if isinstance(value, dict) else {}
        return "map[" + " ".join(f"{k}:{text(pairs[k])}" for k in sorted(pairs, key=str)) + "]"

    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    return (f"{{{{{text(doc.get('apiVersion'))} {text(doc.get('kind'))}}} "
            f"{{{{{text(meta.get('name'))} {text(meta.get('namespace'))}}} "
            f"{go_map(meta.get('labels'))} {go_map(meta.get('annotations'))}}}}}")


def load_config_file(loader: Loader, path: str) -> TransformerConfig:
    text = loader.load(path)
    twice = yamlv3.keys_set_twice(text)
    if twice:
        raise KustomizeError("error converting YAML to JSON: yaml: unmarshal errors:\n"
                             + "\n".join(f"  {line}" for line in twice))
    data = yamlv3.load_all(text)
    tc = TransformerConfig()
    for doc in data:
        if not isinstance(doc, dict):
            continue
        _config_from_dict(tc, doc, path)
    return tc


def _config_from_dict(tc: TransformerConfig, doc: dict, where: str) -> None:
    mapping = {"namePrefix": "name_prefix", "nameSuffix": "name_suffix", "namespace": "namespace",
               "commonLabels": "common_labels", "templateLabels": "template_labels", "labels": "labels",
               "commonAnnotations": "common_annotations", "varReference": "var_reference",
               "images": "images", "replicas": "replicas"}
    for key, attr in mapping.items():
        if key in doc:
            getattr(tc, attr).extend(specs_from(doc[key], f"{where}: {key}"))
    for ref in doc.get("nameReference") or []:
        if not isinstance(ref, dict):
            continue
        gvk = ref.get("gvk") if isinstance(ref.get("gvk"), dict) else ref
        tc.name_reference.append(NameBackRef(str(gvk.get("group") or ""), str(gvk.get("version") or ""),
                                             str(gvk.get("kind") or ""), specs_from(ref.get("fieldSpecs"), where)))


class BuildState:
    """What one build shares across its kustomizations: the OpenAPI schema for merge
    keys, which (as Kustomize's global schema) the first kustomization to name one sets."""

    def __init__(self, warn: Callable[[str], None] | None = None, helm=None) -> None:
        from .helm import HelmConfig

        self.schema = SchemaState()
        self.helm = helm or HelmConfig()  # --enable-helm and the --helm-* flags
        # told each deprecation line as its kustomization file is read (kubectl prints them then)
        self.warn = warn


class Target:
    def __init__(self, loader: Loader, origin: dict | None = None, state: BuildState | None = None) -> None:
        self.loader = loader
        self.root = loader.root
        self.state = state or BuildState()
        # where this kustomization sits below the top one (None: not tracking origins)
        self.origin = origin
        name = find_kustomization(self.root)
        if name is None:
            raise KustomizeError(
                f"unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '{self.root}'")
        self.file_name = name
        self.k = kz.parse(loader.load(name), os.path.join(self.root, name))
        if self.state.warn is not None:
            for line in kz.warnings(self.k):
                self.state.warn(line)
        self._normalize()

    def _normalize(self) -> None:
        k = self.k
        kind = k.get("kind") or "Kustomization"
        if kz.is_empty(k):
            raise KustomizeError("kustomization.yaml is empty")
        problems = kz.enforce_fields(k)
        if problems:
            raise KustomizeError(f"Failed to read kustomization file under {self.root}:\n" + "\n".join(problems))
        self.kind = kind
        self.resources = kz.as_list(k, "resources") + kz.as_list(k, "bases")
        images = kz.as_list(k, "images") + kz.as_list(k, "imageTags")
        self.images = images

    @property
    def is_component(self) -> bool:
        return self.kind == "Component"

    # -- accumulation ---------------------------------------------------------------
    def accumulate(self, ra: Accumulator | None = None) -> Accumulator:
        ra = ra or Accumulator()
        k = self.k
        try:
            self._accumulate_resources(ra, self.resources)
        except KustomizeError as exc:
            raise KustomizeError(f"accumulating resources: {exc}") from None
        ra.config.merge(self._transformer_config())
        for path in kz.as_list(k, "crds"):
            ra.config.merge(_crd_config(self.loader, path))
        self._run_generators(ra)
        try:
            self._accumulate_components(ra, kz.as_list(k, "components"))
        except KustomizeError as exc:
            raise KustomizeError(f"accumulating components: {exc}") from None
        self._run_transformers(ra)
        self._run_validators(ra)
        try:
            ra.merge_vars(kz.as_list(k, "vars"))
        except KustomizeError as exc:
            raise KustomizeError(f"merging vars {_go_vars(kz.as_list(k, 'vars'))}: {exc}") from None
        return ra

    def _transformer_config(self) -> TransformerConfig:
        """Kustomize's MakeTransformerConfig: the defaults merged with the `configurations:`
        files (merged with each other first)."""
        tc = default_config()
        paths = kz.as_list(self.k, "configurations")
        if paths:
            loaded = TransformerConfig()
            for path in paths:
                loaded.merge(load_config_file(self.loader, path))
            tc.merge(loaded)
        return tc

    def _accumulate_resources(self, ra: Accumulator, paths: list) -> None:
        """Each path is tried as a file of resources, then as a kustomization directory;
        when both fail the error tells both stories, as Kustomize's does."""
        for path in paths:
            path = str(path)
            file_error = self._accumulate_file(ra, path)
            if file_error is None:
                continue
            try:
                sub_loader = self.loader.new(path)
            except KustomizeError as exc:
                if isinstance(file_error, MalformedYAMLError):
                    raise file_error from None
                raise KustomizeError(f"accumulation err='{file_error}': {exc}") from None
            try:
                self._accumulate_directory(ra, sub_loader, path, component=False)
            except KustomizeError as exc:
                raise KustomizeError(f"accumulation err='{file_error}': {exc}") from None

    def _accumulate_file(self, ra: Accumulator, path: str) -> KustomizeError | None:
        try:
            resources = resources_from_text(self.loader.load(path), path)
        except KustomizeError as exc:
            return type(exc)(f"accumulating resources from '{path}': {exc}")
        self.state.schema.note_kinds(resources)
        for res in resources:
            if self.origin is not None:
                res.origin = origins.append(self.origin, path)
            try:
                ra.resmap.append(res)
            except KustomizeError as exc:
                return KustomizeError(f"merging resources from '{path}': {exc}")
        return None

    def _accumulate_directory(self, ra: Accumulator, sub_loader: Loader, path: str, component: bool) -> None:
        root = sub_loader.root
        try:
            sub = Target(sub_loader, None if self.origin is None else origins.append(self.origin, path), self.state)
        except KustomizeError as exc:
            raise KustomizeError(f"couldn't make target for path '{root}': {exc}") from None
        sub.set_schema(reset=False)
        if component and not sub.is_component:
            raise KustomizeError(f"expected kind 'Component' for path '{root}' but got '{sub.kind}'")
        if not component and sub.is_component:
            raise KustomizeError(f"expected kind != 'Component' for path '{root}'")
        try:
            # a component adds to its parent's accumulator; a kustomization builds its own
            sub_ra = sub.accumulate(ra if component else None)
        except KustomizeError as exc:
            raise KustomizeError(f"recursed accumulation of path '{root}': {exc}") from None
        if component:
            return
        try:
            ra.resmap.append_all(sub_ra.resmap)
            ra.config.merge(sub_ra.config)
            ra.merge_vars(sub_ra.vars, match=False)
        except KustomizeError as exc:
            raise KustomizeError(f"recursed merging from path '{root}': {exc}") from None

    def _accumulate_components(self, ra: Accumulator, paths: list) -> None:
        from kubelite.manifest.jsonpath import go_quote

        for path in paths:
            try:
                sub_loader = self.loader.new(str(path))
            except KustomizeError as exc:
                raise KustomizeError(f"loader.New {go_quote(str(exc))}") from None
            try:
                self._accumulate_directory(ra, sub_loader, str(path), component=True)
            except KustomizeError as exc:
                raise KustomizeError(f"accumulateDirectory: {go_quote(str(exc))}") from None

    # -- generators -----------------------------------------------------------------
    def _run_generators(self, ra: Accumulator) -> None:
        k = self.k
        self._refuse_helm_charts()
        options = kz.as_map(k, "generatorOptions")
        generated = []
        for field, kind in (("configMapGenerator", "ConfigMap"), ("secretGenerator", "Secret")):
            origin = self._builtin_origin(f"{kind}Generator")
            for args in kz.as_list(k, field):
                res = generators.generate(args, kind, self.loader, options)
                origins.record_generated([res], origin)
                generated.append(res)
        generated += self._inflate_helm_charts()
        for res in generated:
            try:
                ra.resmap.absorb(res)
            except KustomizeError as exc:
                raise KustomizeError(f"merging from generator &{{0xc000000000 <nil>}}: {exc}") from None
        for make, origin in self._external_generators():
            made = make()
            origins.record_generated(made, origin)
            for res in made:
                try:
                    ra.resmap.absorb(res)
                except KustomizeError as exc:
                    raise KustomizeError(f"merging from generator &{{0xc000000000 <nil>}}: {exc}") from None

    def _external_generators(self) -> list:
        """Every `generators:` plugin configured (loading errors first), each with its origin."""
        from .builtins import load_plugin

        try:
            configs = self._plugin_configs(kz.as_list(self.k, "generators"))
            loaded = []
            for config, config_origin in configs:
                try:
                    plugin = load_plugin(config, self, "generator")
                except KustomizeError as exc:
                    raise KustomizeError(f"failed to load generator: {exc}") from None
                loaded.append((plugin, origins.from_plugin_config(config_origin, config.obj)))
            return loaded
        except KustomizeError as exc:
            raise KustomizeError(f"loading generator plugins: {exc}") from None

    def _inflate_helm_charts(self) -> list:
        """Under --enable-helm each chart of `helmCharts:` (with `helmGlobals:`) is inflated by Helm."""
        if not self.state.helm.enabled:
            return []
        from .helm import inflate

        made = []
        for chart in kz.as_list(self.k, "helmCharts"):
            if chart is not None:
                made += inflate(self.state.helm, chart if isinstance(chart, dict) else {}, kz.as_map(self.k, "helmGlobals"))
        return made

    def _refuse_helm_charts(self) -> None:
        """Charts are inflated only under --enable-helm: without it, kustomize's configuration error
        for the first chart (its config as sigs.k8s.io/yaml writes it)."""
        charts = [c for c in kz.as_list(self.k, "helmCharts") if c is not None]
        if not charts or self.state.helm.enabled:
            return
        import yaml

        config = {**kz.as_map(self.k, "helmGlobals"), **(charts[0] if isinstance(charts[0], dict) else {})}
        config = {key: value for key, value in config.items() if value not in (None, "", False, [], {})}
        text = yaml.safe_dump(config, default_flow_style=False, sort_keys=True) if config else "{}\n"
        raise KustomizeError(f"trouble configuring builtin HelmChartInflationGenerator with config: `\n{text}`: "
                             "must specify --enable-helm")

    def _builtin_origin(self, kind: str) -> dict | None:
        """The origin of a builtin plugin configured by this kustomization file."""
        if self.origin is None:
            return None
        return origins.configured(self.origin, self.file_name, "builtin", kind)

    # -- transformers ---------------------------------------------------------------
    def _run_transformers(self, ra: Accumulator) -> None:
        """Configure every transformer (builtin fields, then `transformers:` entries), then
        run them in Kustomize's order; configuration errors come before any run."""
        builtin = self._builtin_transformers(ra)
        steps = [(run, origin) for run, origin, _ in builtin] + self._external_transformers()
        keeps_index = [kind in _KEEP_NAME_INDEX for _, _, kind in builtin]
        rm = ra.resmap
        for i, (run, origin) in enumerate(steps):
            run(rm)
            if i >= len(keeps_index) or not keeps_index[i]:
                rm.names_changed()
            origins.record_transformer(rm, origin)

    def _configured(self, kind: str, config: dict, configure):
        """Kustomize's configureBuiltinPlugin: errors show the plugin's configuration."""
        try:
            return configure()
        except KustomizeError as exc:
            text = patches.builtin_config_text(config)
            raise KustomizeError(f"trouble configuring builtin {kind} with config: `\n{text}`: {exc}") from None

    def _builtin_transformers(self, ra: Accumulator) -> list:
        """(run, origin, kind) of each builtin transformer the kustomization configures."""
        k = self.k
        tc = ra.config
        steps: list = []

        def add(kind: str, run) -> None:
            steps.append((run, self._builtin_origin(kind), kind))

        psm = kz.as_list(k, "patchesStrategicMerge")
        if psm:
            loaded = self._configured("PatchStrategicMergeTransformer", {"paths": psm},
                                      lambda: patches.load_smp_entries(psm, self.loader))
            add("PatchStrategicMergeTransformer",
                lambda rm: patches.patches_strategic_merge(rm, loaded, self.schemas()))
        for entry in kz.as_list(k, "patches"):
            config = _patch_config(entry)
            plan = self._configured("PatchTransformer", config, lambda: patches.configure_patch(
                entry, self.loader, patches.builtin_config_text(config)))
            add("PatchTransformer", lambda rm, plan=plan: plan.apply(rm, self.schemas()))
        ns = k.get("namespace")
        if ns:
            add("NamespaceTransformer", lambda rm: transformers.namespace(rm, str(ns), tc.namespace))
        if k.get("namePrefix"):
            add("PrefixTransformer", lambda rm: transformers.prefix_suffix(rm, str(k["namePrefix"]), "", tc.name_prefix))
        if k.get("nameSuffix"):
            add("SuffixTransformer", lambda rm: transformers.prefix_suffix(rm, "", str(k["nameSuffix"]), tc.name_suffix))
        labels = kz.as_list(k, "labels")
        for label in labels:
            add("LabelTransformer", lambda rm, label=label: transformers.add_map_entries(
                rm, label.get("pairs") or {}, self._label_specs(label, tc)))
        if labels or kz.as_map(k, "commonLabels"):
            # Kustomize configures the commonLabels transformer whenever either field is set
            add("LabelTransformer", lambda rm: transformers.add_map_entries(
                rm, kz.as_map(k, "commonLabels"), tc.common_labels))
        if kz.as_map(k, "commonAnnotations"):
            add("AnnotationsTransformer", lambda rm: transformers.add_map_entries(
                rm, kz.as_map(k, "commonAnnotations"), tc.common_annotations))
        for entry in kz.as_list(k, "patchesJson6902"):
            config = {"target": entry.get("target"), "path": entry.get("path"), "jsonOp": entry.get("patch")}
            plan = self._configured("PatchJson6902Transformer", config,
                                    lambda: patches.configure_json6902(entry, self.loader))
            add("PatchJson6902Transformer", plan.apply)
        for entry in kz.as_list(k, "replicas"):
            add("ReplicaCountTransformer", lambda rm, entry=entry: transformers.replicas(rm, entry, tc.replicas))
        for entry in self.images:
            add("ImageTagTransformer", lambda rm, entry=entry: transformers.images(rm, entry, tc.images))
        if kz.as_list(k, "replacements"):
            from . import replacements

            loaded = replacements.load(kz.as_list(k, "replacements"), self.loader)
            add("ReplacementTransformer", lambda rm: replacements.run(rm, loaded))
        return steps

    def _external_transformers(self, field: str = "transformers") -> list:
        from .builtins import load_plugin

        return [(load_plugin(config, self, "transformer"), origins.from_plugin_config(config_origin, config.obj))
                for config, config_origin in self._plugin_configs(kz.as_list(self.k, field))]

    def _run_validators(self, ra: Accumulator) -> None:
        """`validators:` are transformer plugins that must leave every resource as it was."""
        from .validation import check_unchanged

        for run, _origin in self._external_transformers("validators"):
            before = [res.copy() for res in ra.resmap]
            run(ra.resmap)
            ra.resmap.names_changed()
            check_unchanged(before, list(ra.resmap))

    def _label_specs(self, label: dict, tc: TransformerConfig) -> list[FieldSpec]:
        specs = specs_from(label.get("fields"), "labels.fields") + list(tc.labels)
        if label.get("includeSelectors"):
            specs += tc.common_labels
        else:
            if label.get("includeTemplates"):
                specs += tc.template_labels
            specs.append(FieldSpec("metadata/labels", create=True))
        return specs

    def set_schema(self, reset: bool) -> None:
        """Kustomize's openapi.SetSchema: the top kustomization always sets it, a base
        or component only while nothing has."""
        openapi = kz.as_map(self.k, "openapi")
        text = self.loader.load(str(openapi["path"])) if "path" in openapi else None
        self.state.schema.set(openapi, text, reset)

    def schemas(self) -> patches.SchemaSource:
        return self.state.schema.current()

    def _plugin_configs(self, entries: list) -> list[tuple[Resource, dict | None]]:
        """Plugin configs (inline or from files), each with its origin when tracked."""
        configs: list[tuple[Resource, dict | None]] = []
        paths = []
        inline_origin = None if self.origin is None else origins.append(self.origin, self.file_name)
        for entry in entries:
            text = str(entry)
            try:
                # an entry that reads as resources is an inline config; anything else a path
                inline = resources_from_text(text, "")
            except KustomizeError:
                paths.append(text)
                continue
            self.state.schema.note_kinds(inline)
            configs.extend((r, inline_origin) for r in inline)
        ra = Accumulator()
        self._accumulate_resources(ra, paths)
        configs.extend((r, r.origin) for r in ra.resmap)
        return configs


def _go_vars(variables: list) -> str:
    """Go's %v of the kustomization's vars: {name Kind.version.group {fieldpath}} each."""
    from .resource import Gvk

    out = []
    for v in variables:
        if not isinstance(v, dict):
            continue
        ref = v.get("objref") if isinstance(v.get("objref"), dict) else {}
        field = v.get("fieldref") if isinstance(v.get("fieldref"), dict) else {}
        gvk = Gvk(str(ref.get("group") or ""), str(ref.get("version") or ""), str(ref.get("kind") or ""))
        out.append(f"{{{v.get('name') or ''} {gvk} {{{field.get('fieldpath') or ''}}}}}")
    return "[" + " ".join(out) + "]"


def _patch_config(entry: object) -> dict:
    """A `patches:` entry as Kustomize hands it to PatchTransformer (path, patch, target, options)."""
    if not isinstance(entry, dict):
        return {}
    return {key: entry.get(key) for key in ("path", "patch", "target", "options")}


def _crd_config(loader: Loader, path: str) -> TransformerConfig:
    """Field specs from OpenAPI definitions (a map of type name to {Schema, Dependencies}),
    as Kustomize reads the `crds:` files: reference, label, annotation and name fields
    marked with x-kubernetes-* extensions, following $refs from each Kubernetes type."""
    import json

    text = loader.load(path)
    try:
        doc = json.loads(text) if text.startswith("{") else yamlv3.load_all(text)[0]
    except (ValueError, KustomizeError) as exc:
        raise KustomizeError(f"unable to parse open API definition from '{path}': {exc}") from None
    tc = TransformerConfig()
    if not isinstance(doc, dict):
        return tc
    for name, api in doc.items():
        props = _crd_properties(api)
        if not all(k in props for k in ("kind", "apiVersion", "metadata")):
            continue
        _crd_refs(tc, str(name).rsplit(".", 1)[-1], doc, str(name), [], set())
    return tc


def _crd_properties(api: object) -> dict:
    schema = api.get("Schema") if isinstance(api, dict) else None
    props = schema.get("properties") if isinstance(schema, dict) else None
    return props if isinstance(props, dict) else {}


def _crd_refs(tc: TransformerConfig, kind: str, defs: dict, type_name: str, path: list, active: set) -> None:
    if type_name not in defs or type_name in active:
        return
    active = active | {type_name}
    for field, prop in _crd_properties(defs[type_name]).items():
        if not isinstance(prop, dict):
            continue
        here = path + [field]
        spec = FieldSpec("/".join(here), kind=kind)
        if isinstance(prop.get("x-kubernetes-annotation"), str):
            tc.common_annotations.append(spec)
        if isinstance(prop.get("x-kubernetes-label-selector"), str):
            tc.common_labels.append(spec)
        if isinstance(prop.get("x-kubernetes-identity"), str):
            tc.name_prefix.append(spec)
        version, ref_kind = prop.get("x-kubernetes-object-ref-api-version"), prop.get("x-kubernetes-object-ref-kind")
        if isinstance(version, str) and isinstance(ref_kind, str):
            name_key = prop.get("x-kubernetes-object-ref-name-key")
            name_key = name_key if isinstance(name_key, str) else "name"
            tc.name_reference.append(
                NameBackRef("", version, ref_kind, [FieldSpec("/".join(here + [name_key]), kind=kind)]))
        if isinstance(prop.get("$ref"), str) and prop["$ref"]:
            _crd_refs(tc, kind, defs, prop["$ref"], here, active)
