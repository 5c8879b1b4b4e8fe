"""`Client`: kubectl's object management as Python methods, on any cluster.

A Client works through a kubelite Session (discovery + dynamic client + transport), so the same
methods reach the in-process cluster (`kubelite.Cluster`, a subclass) and a real one through a
kubeconfig (`kubelite.connect()`). apply and diff run the same orchestration as the CLI
(kubelite.apply). Objects are plain dicts; failures raise kubelite's exceptions, whose messages
are kubectl's.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Iterator

from kubelite.api.errors import (ApplyError, NotFound, NotSupported, WaitTimeout, kubectl_message,
                                 translate)
from kubelite.api.sources import Source

DRY_RUNS = ("none", "client", "server")


@dataclass(frozen=True)
class Applied:
    """One object of an apply: what happened to it and the object as the server left it."""

    action: str      # created | configured | unchanged | pruned | serverside-applied
    object: dict     # the live object (for a client dry run, the object as it would be sent)
    source: str = ""  # the file (or <dict>, <string>) it came from; "" for a pruned object

    @property
    def kind(self) -> str:
        return str(self.object.get("kind") or "")

    @property
    def name(self) -> str:
        return str((self.object.get("metadata") or {}).get("name") or "")

    @property
    def namespace(self) -> str:
        return str((self.object.get("metadata") or {}).get("namespace") or "")


class Client:
    """A cluster's objects through a kubelite Session; use as a context manager or call close()."""

    def __init__(self, session, namespace: str | None = None):
        self.session = session
        self.namespace = namespace or session.namespace or "default"

    # -- life cycle --------------------------------------------------------------------------

    def close(self) -> None:
        self.session.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _changed(self) -> None:
        """Called after every write; the in-process Cluster settles its controllers here."""

    # -- declarative -------------------------------------------------------------------------

    def apply(self, source: Source, *, kustomize: bool = False, recursive: bool = False,
              namespace: str | None = None, selector: str | None = None, prune: bool = False,
              prune_all: bool = False, prune_allowlist: list[str] | tuple[str, ...] = (), applyset: str = "",
              cascade: str = "background", dry_run: str = "none", server_side: bool = False,
              force_conflicts: bool = False, field_manager: str | None = None, overwrite: bool = True,
              force: bool = False, wait: bool = False, timeout: float | None = None) -> list[Applied]:
        """`kubectl apply`: create or patch each object of `source` (paths, kustomize=True for a
        kustomization directory, YAML text, dicts, or a list of them); with prune=True also
        delete what an earlier apply made and `source` no longer holds (selector=, prune_all=
        or applyset= say which, as kubectl's flags do). Returns one Applied per object."""
        _check_apply(dry_run, server_side, force_conflicts, prune, prune_all, selector, applyset, force)
        found = self._manifests(source, kustomize, recursive, "apply")
        return self._apply_run(found, namespace=namespace, selector=selector, prune=prune,
                               allowlist=list(prune_allowlist), applyset=applyset, cascade=cascade,
                               dry_run=dry_run, field_manager=field_manager, overwrite=overwrite, force=force,
                               wait=wait, timeout=timeout, server_side=server_side, force_conflicts=force_conflicts)

    def _apply_run(self, found, *, namespace, selector, prune, allowlist, applyset, cascade, dry_run,
                   field_manager, overwrite, force, wait, timeout, server_side, force_conflicts) -> list[Applied]:
        """apply/run.ApplyRun, the orchestration `kubelite apply` runs too."""
        from kubelite.apply.engine import FIELD_MANAGER, ApplyOptions
        from kubelite.apply.run import ApplyRun, PruneOptions

        writer: dict = {}
        if server_side:
            from kubelite.apply.serverside import SERVER_SIDE_MANAGER, ServerSideApplier

            writer = {"applier_class": ServerSideApplier, "force_conflicts": force_conflicts}
        default_manager = SERVER_SIDE_MANAGER if server_side else FIELD_MANAGER
        options = ApplyOptions(dry_run=dry_run, overwrite=overwrite, force=force,
                               field_manager=field_manager or default_manager, selector=selector,
                               namespace=namespace or self.namespace, enforce_namespace=namespace is not None,
                               timeout=timeout)
        results: list[Applied] = []

        def report(outcome) -> None:
            results.append(Applied(outcome.verb, outcome.obj, outcome.item.source))

        run = ApplyRun(self.session, options, on_outcome=report, **writer,
                       prune=PruneOptions(selector=selector, allowlist=allowlist, applyset=applyset,
                                          cascade=cascade))
        try:
            result = run.apply(found)
            if result.errors:
                raise _apply_failure(result.errors, results)
            if prune:
                pruned = run.prune(result)
                results.extend(Applied("pruned", obj) for obj in pruned)
                if wait:
                    run.wait_pruned(pruned)
        except Exception as err:
            raise translate(err) from None
        finally:
            self._changed()
        return results

    def diff(self, source: Source, *, kustomize: bool = False, recursive: bool = False,
             namespace: str | None = None, selector: str | None = None, field_manager: str | None = None,
             show_secrets: bool = False, show_managed_fields: bool = False) -> str:
        """`kubectl diff`: the unified diff of the live objects against what apply would make
        them ("" when nothing differs). Secret data is masked unless show_secrets=True."""
        import io

        from kubelite.apply.diff import diff_manifests
        from kubelite.apply.engine import FIELD_MANAGER, ApplyOptions

        found = self._manifests(source, kustomize, recursive, "diff")
        options = ApplyOptions(field_manager=field_manager or FIELD_MANAGER, selector=selector,
                               namespace=namespace or self.namespace, enforce_namespace=namespace is not None)
        out, err = io.StringIO(), io.StringIO()
        try:
            code = diff_manifests(self.session, found, options, out, err, show_managed_fields=show_managed_fields,
                                  show_secrets=show_secrets)
        except Exception as failure:
            raise translate(failure) from None
        if code > 1:
            raise RuntimeError(f"the diff program failed (exit status {code}): {err.getvalue().strip()}")
        return out.getvalue()

    # -- imperative --------------------------------------------------------------------------

    def get(self, kind: str, name: str, *, namespace: str | None = None) -> dict:
        """One object (`kind` as kubectl takes it: "deployments", "deploy", "deployment.apps")."""
        resource = self._resource(kind)
        return self._call(lambda: _typed(self.session.client.get(resource, name, self._ns(resource, namespace)),
                                         resource))

    def list(self, kind: str, *, namespace: str | None = None, all_namespaces: bool = False,
             selector: str | None = None, field_selector: str | None = None) -> list[dict]:
        """The objects of a type in a namespace (or all of them), optionally filtered by labels/fields."""
        resource = self._resource(kind)
        ns = None if all_namespaces else self._ns(resource, namespace)
        page = self._call(lambda: self.session.client.list(resource, ns, label_selector=selector,
                                                           field_selector=field_selector))
        return [_typed(obj, resource) for obj in page.get("items") or ()]

    def create(self, source: Source, *, namespace: str | None = None, dry_run: str = "none",
               field_manager: str = "kubectl-create") -> Any:
        """`kubectl create`: one dict in, the created object out; paths/text/lists in, a list out."""
        from kubelite.client.dynamic import WriteParams

        found = self._manifests(source, False, False, "create")
        params = WriteParams(dry_run=dry_run == "server", field_manager=field_manager, field_validation="Strict")
        created = []
        try:
            for manifest in found:
                obj = manifest.obj
                resource = self._resource_for(obj)
                ns = self._ns(resource, namespace or (obj.get("metadata") or {}).get("namespace"))
                if dry_run == "client":
                    created.append(obj)
                    continue
                created.append(self._call(lambda: self.session.client.create(resource, ns, obj, params)))
        finally:
            self._changed()
        return created[0] if isinstance(source, dict) and len(created) == 1 else created

    def patch(self, kind: str, name: str, patch: Any, *, namespace: str | None = None, type: str = "strategic",
              subresource: str | None = None, dry_run: str = "none", field_manager: str = "kubectl-patch") -> dict:
        """`kubectl patch`: `patch` is a dict/list or YAML/JSON text; type is "strategic" (default),
        "merge", "json" or "apply"."""
        from kubelite.client.dynamic import PATCH_TYPES, WriteParams

        if type not in PATCH_TYPES:
            raise ValueError(f'type must be one of {", ".join(PATCH_TYPES)}, not {type!r}')
        resource = self._resource(kind)
        params = WriteParams(dry_run=dry_run == "server", field_manager=field_manager)
        if isinstance(patch, str) and type != "apply":  # YAML or JSON text, as kubectl patch -p takes it
            import yaml

            patch = yaml.safe_load(patch)
        try:
            return self._call(lambda: self.session.client.patch(resource, self._ns(resource, namespace), name,
                                                                patch, type, params, subresource=subresource))
        finally:
            self._changed()

    def replace(self, obj: dict, *, namespace: str | None = None) -> dict:
        """`kubectl replace`: PUT the whole object (its resourceVersion, if set, is a precondition)."""
        resource = self._resource_for(obj)
        ns = self._ns(resource, namespace or (obj.get("metadata") or {}).get("namespace"))
        name = (obj.get("metadata") or {}).get("name") or ""
        try:
            return self._call(lambda: self.session.client.replace(resource, ns, name, obj))
        finally:
            self._changed()

    def delete(self, kind: str, name: str, *, namespace: str | None = None, cascade: str = "background",
               grace_period: int | None = None, wait: bool = False, timeout: float = 30.0) -> dict:
        """`kubectl delete`: cascade is "background", "foreground" or "orphan". Returns what the
        server answered (the object, still there under foreground deletion or finalizers, or a
        Status); wait=True waits until the object is gone."""
        from kubelite.apply.run import propagation

        resource = self._resource(kind)
        ns = self._ns(resource, namespace)
        policy = propagation(cascade)
        try:
            answer = self._call(lambda: self.session.client.delete(resource, ns, name, propagation_policy=policy,
                                                                   grace_period_seconds=grace_period))
        finally:
            self._changed()
        if wait:
            self.wait(f"{kind}/{name}", "delete", namespace=namespace, timeout=timeout)
        return answer

    def watch(self, kind: str, *, namespace: str | None = None, all_namespaces: bool = False,
              name: str | None = None, selector: str | None = None, resource_version: str | None = None,
              timeout: float | None = None) -> Iterator[dict]:
        """Watch events ({"type": ADDED|MODIFIED|DELETED|..., "object": {...}}), starting with the
        current objects unless resource_version is given; ends after `timeout` seconds."""
        resource = self._resource(kind)
        ns = None if all_namespaces else self._ns(resource, namespace)
        try:
            for event in self.session.client.watch(resource, ns, name=name, label_selector=selector,
                                                   resource_version=resource_version, timeout=timeout):
                if isinstance(event.get("object"), dict) and event.get("type") != "ERROR":
                    event = {**event, "object": _typed(event["object"], resource)}
                yield event
        except Exception as err:
            raise translate(err) from None

    def wait(self, target: str, condition: str, *, namespace: str | None = None, timeout: float = 30.0) -> dict | None:
        """`kubectl wait TYPE/NAME --for=CONDITION --timeout=...`: the object once the condition
        holds (None for "delete"); WaitTimeout if it does not within `timeout` seconds."""
        from kubelite.api import wait as conditions

        kind, sep, name = target.partition("/")
        if not sep or not name:
            raise ValueError(f"wait needs TYPE/NAME (like deployment/web), not {target!r}")
        cond = conditions.parse(condition)
        resource = self._resource(kind)
        ns = self._ns(resource, namespace)
        obj = self._get_or_none(resource, name, ns)
        if obj is None and cond.mode not in ("delete", "create"):
            self.get(kind, name, namespace=namespace)  # raises kubectl's NotFound
        return self._wait_for(resource, name, ns, cond, timeout, obj)

    def _wait_for(self, resource, name: str, ns: str | None, cond, timeout: float, obj: dict | None) -> dict | None:
        """Watch the object until the condition holds or `timeout` seconds have passed."""
        deadline = time.monotonic() + timeout
        while not cond.met(obj):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _timed_out(resource, name, cond)
            obj = self._next_state(resource, name, ns, obj, cond, remaining)
        return None if cond.mode == "delete" else obj

    def _next_state(self, resource, name: str, ns: str | None, obj: dict | None, cond, remaining: float):
        """The object after the watch saw it change (or as it is when the watch ends)."""
        client = self.session.client
        if obj is None:  # watch from the list's revision so a creation cannot slip between
            page = self._call(lambda: client.list(resource, ns, field_selector=f"metadata.name={name}"))
            rv = (page.get("metadata") or {}).get("resourceVersion")
            items = page.get("items") or []
            if items:
                return _typed(items[0], resource)
        else:
            rv = (obj.get("metadata") or {}).get("resourceVersion")
        try:
            for event in client.watch(resource, ns, name=name, resource_version=rv, timeout=remaining):
                kind = event.get("type")
                if kind == "ERROR":
                    break  # e.g. a compacted revision: read again
                if kind in ("ADDED", "MODIFIED", "DELETED"):
                    obj = None if kind == "DELETED" else _typed(event["object"], resource)
                    if cond.met(obj):
                        return obj
        except Exception as err:
            raise translate(err) from None
        return self._get_or_none(resource, name, ns)

    def logs(self, pod: str, *, namespace: str | None = None, container: str | None = None,
             tail: int | None = None, previous: bool = False) -> str:
        """`kubectl logs`: a pod's (simulated) container log, as text."""
        from kubelite.client.dynamic import resource_path

        resource = self._resource("pods")
        path = resource_path(resource, self._ns(resource, namespace), pod, "log")
        params = {"container": container, "tailLines": str(tail) if tail is not None else None,
                  "previous": "true" if previous else None}
        return self._call(lambda: self.session.transport.request("GET", path, params=params).text)

    def kustomize(self, path: str) -> list[dict]:
        """`kubectl kustomize`: the objects a kustomization builds (no cluster involved)."""
        from kubelite.kustomize import build

        return build(str(path))

    # -- in-process only ---------------------------------------------------------------------

    def settle(self, timeout: float = 30.0) -> bool:
        raise NotSupported("settle() needs an in-process kubelite.Cluster: a remote cluster's controllers run "
                           "on their own")

    def advance(self, seconds: float) -> None:
        raise NotSupported("advance() needs an in-process kubelite.Cluster: a remote cluster's clock cannot "
                           "be moved")

    def snapshot(self):
        raise NotSupported("snapshot() needs an in-process kubelite.Cluster")

    def restore(self, snapshot) -> None:
        raise NotSupported("restore() needs an in-process kubelite.Cluster")

    def serve(self, **kwargs):
        raise NotSupported("serve() needs an in-process kubelite.Cluster (a remote cluster is already served)")

    # -- helpers -----------------------------------------------------------------------------

    def _manifests(self, source: Source, kustomize: bool, recursive: bool, verb: str) -> list:
        from kubelite.api.sources import manifests

        return manifests(source, kustomize=kustomize, recursive=recursive, verb=verb)

    def _resource(self, kind: str):
        from kubelite.client.errors import ResourceTypeNotFound

        try:
            return self.session.discovery.resolve(kind)
        except ResourceTypeNotFound as err:
            raise _type_not_found(err) from None

    def _resource_for(self, obj: dict):
        from kubelite.client.discovery import KindNotFound

        try:
            return self.session.discovery.for_kind(str(obj.get("apiVersion") or ""), str(obj.get("kind") or ""))
        except KindNotFound as err:
            raise _type_not_found(err) from None

    def _ns(self, resource, namespace: str | None) -> str | None:
        return (namespace or self.namespace) if resource.namespaced else None

    def _get_or_none(self, resource, name: str, ns: str | None) -> dict | None:
        try:
            return _typed(self._call(lambda: self.session.client.get(resource, name, ns)), resource)
        except NotFound:
            return None

    @staticmethod
    def _call(fn):
        try:
            return fn()
        except Exception as err:
            raise translate(err) from None


def _typed(obj: dict, resource) -> dict:
    """List items and watch objects lack apiVersion/kind on the wire; fill them in as kubectl does."""
    if obj.get("kind") and obj.get("apiVersion"):
        return obj
    api_version = f"{resource.group}/{resource.version}" if resource.group else resource.version
    return {"apiVersion": api_version, "kind": resource.kind, **obj}


def _type_not_found(err: Exception) -> NotFound:
    status = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404,
              "message": str(err)}
    return NotFound(status, 404, text=kubectl_message(err))


def _timed_out(resource, name: str, cond) -> WaitTimeout:
    return WaitTimeout(f"timed out waiting for the condition on {resource.resource}/{name}")


def _apply_failure(errors: list, results: list) -> Exception:
    """One failure is raised as itself (NotFound, Invalid, ...); several together as ApplyError."""
    translated = [translate(e) for e in errors]
    if len(translated) == 1:
        err = translated[0]
        err.results = results
        return err
    return ApplyError(translated, results)


def _check_apply(dry_run: str, server_side: bool, force_conflicts: bool, prune: bool, prune_all: bool,
                 selector: str | None, applyset: str, force: bool) -> None:
    """kubectl's rules on combining apply's options, as ValueErrors worded as kubectl's."""
    if dry_run not in DRY_RUNS:
        raise ValueError(f'Invalid dry-run value ({dry_run}). Must be "none", "server", or "client".')
    if force_conflicts and not server_side:
        raise ValueError("--force-conflicts only works with --server-side")
    if dry_run == "server" and force:
        raise ValueError("--dry-run=server cannot be used with --force")
    if prune_all and selector:
        raise ValueError("cannot set --all and --selector at the same time")
    if applyset and not prune:
        raise ValueError("--applyset requires --prune")
    if prune and not applyset and not prune_all and not selector:
        raise ValueError("all resources selected for prune without explicitly passing --all. To prune all "
                         "resources, pass the --all flag. If you did not mean to prune all resources, specify "
                         "a label selector")
