"""Client-side apply against a cluster: settle, plan, send, retry, report.

One object at a time in dependency order (Namespaces, then CRDs, then the rest; custom
resources of a CRD applied in the same run wait until it is Established). A failing object
does not stop the others; every failure is collected and reported at the end.
"""
from __future__ import annotations

import _thread  # a Lock without threading's import: most runs stay on one thread
import time

from kubelite.apply import lastapplied
from kubelite.apply.objects import Item, ObjectError, in_dependency_order, is_crd, settle_namespace
from kubelite.apply.plan import CREATE, PATCH, UNCHANGED, Action, plan_object
from kubelite.record import Record, factory

TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Any, Callable

FIELD_MANAGER = "kubectl-client-side-apply"
# From this many objects of one kind in one namespace, their live state comes from one LIST
# instead of one GET each (kubectl GETs each object: 500 round trips for 500 ConfigMaps).
PREFETCH_MIN_OBJECTS = 10
MAX_PATCH_RETRIES = 5
CRD_WAIT_SECONDS = 30.0


class ApplyOptions(Record):
    dry_run: str = "none"               # none | client | server
    overwrite: bool = True
    force: bool = False
    grace_period: int = -1
    field_manager: str = FIELD_MANAGER
    validation: str = "Strict"          # fieldValidation: Strict | Warn | Ignore
    selector: str | None = None         # -l: only objects whose labels match
    namespace: str = "default"
    enforce_namespace: bool = False
    max_retries: int = MAX_PATCH_RETRIES
    base: str = "kubectl"               # command name in kubectl's warning texts
    retry_sleep: float = 1.0
    timeout: float | None = None        # --timeout: how long --force waits for the deletion (None: 30 s)


class Outcome(Record):
    item: Item
    verb: str = ""
    obj: dict | None = None     # the object as the server (or the local dry run) left it
    error: Exception | None = None


class Result(Record):
    outcomes: list[Outcome] = factory(list)
    errors: list[Exception] = factory(list)
    visited_uids: set = factory(set)
    visited_namespaces: set = factory(set)


class SourcedError(Exception):
    """A failure with the verb and source kubectl names (`error when creating "f.yaml": ...`)."""

    def __init__(self, verb: str, source: str, cause: Exception):
        self.verb, self.source, self.cause = verb, source, cause
        super().__init__(f'error when {verb} "{source}": {cause}' if source else str(cause))


def sourced(verb: str, source: str, cause: Exception) -> Exception:
    """kubectl's AddSourceToErr: an API error stays one (its message gains the source)."""
    from kubelite.client.errors import ApiError

    if isinstance(cause, ApiError):
        return cause.with_source(verb, source)
    return SourcedError(verb, source, cause)


class Applier:
    """Applies items with a kubelite.client Session-like object (discovery + dynamic client)."""

    def __init__(self, session, options: ApplyOptions, *, on_outcome: Callable[[Outcome], None] | None = None,
                 warn: Callable[[str], None] | None = None):
        self.session = session
        self.options = options
        self.on_outcome = on_outcome or (lambda outcome: None)
        self.warn = warn or (lambda text: None)
        self._schemas: dict = {}
        self._groups: dict = {}
        self._group_sizes: dict = {}
        self._prefetched: dict = {}  # group -> _Listed, or None: GET each object
        self._early: dict = {}  # group -> (namespace, future of its LIST's pages) started by _warm
        self._listing_lock = _thread.allocate_lock()

    # -- preparation -------------------------------------------------------------------------

    def prepare(self, manifests) -> list[Item]:
        """Items from manifests (objects with `.obj` and `.source`), filtered by -l."""
        matches = _selector(self.options.selector)
        items = []
        for manifest in manifests:
            obj = manifest.obj
            if matches is not None and not matches(obj):
                continue
            items.append(Item(obj, manifest.source))
        return in_dependency_order(items)

    def resolve(self, item: Item) -> None:
        from kubelite.client.discovery import KindNotFound

        api_version, kind = str(item.obj.get("apiVersion") or ""), str(item.obj.get("kind") or "")
        try:
            item.resource = self.session.discovery.for_kind(api_version, kind)
        except KindNotFound as err:
            ns = (item.obj.get("metadata") or {}).get("namespace") or ""
            raise ObjectError(
                f'resource mapping not found for name: "{item.name}" namespace: "{ns}" from "{item.source}": '
                f"{err}\nensure CRDs are installed first") from None
        item.obj = settle_namespace(item.obj, item.resource.namespaced, self.options.namespace,
                                    self.options.enforce_namespace)

    # -- running -----------------------------------------------------------------------------

    def run(self, items: list[Item]) -> Result:
        result = Result()
        if self.options.enforce_namespace:
            result.visited_namespaces.add(self.options.namespace)
        unmapped = []  # kubectl finds these while reading, so reports them before apply errors
        self._groups = {id(item): _group(item) for item in items}  # as written: before namespaces settle
        self._group_sizes, self._prefetched = {}, {}
        for group in self._groups.values():
            self._group_sizes[group] = self._group_sizes.get(group, 0) + 1
        for outcome in self._outcomes(items, result):
            result.outcomes.append(outcome)
            if isinstance(outcome.error, ObjectError):
                unmapped.append(outcome.error)
            elif outcome.error is not None:
                result.errors.append(outcome.error)
            else:
                self.on_outcome(outcome)
        result.errors[:0] = unmapped
        return result

    def _outcomes(self, items: list[Item], result: Result):
        """Each item's outcome in order: applied one at a time, or a few at a time over HTTP (the
        kinds that no other object's admission depends on), each item's warnings said in order."""
        from kubelite.client.inorder import workers_for

        transport = getattr(self.session.client, "transport", None)
        workers = workers_for(transport) if self.options.dry_run != "client" else 1
        if workers <= 1 or len(items) < 2:
            for item in items:
                yield self.apply_one(item, result)
            return
        from kubelite.client.workers import Pool

        with Pool(1) as lists:
            self._warm(items, lists)
            yield from self._side_by_side(items, result, transport, workers)

    def _side_by_side(self, items: list[Item], result: Result, transport, workers: int):
        from kubelite.client.inorder import Ready, SaidAside, in_order

        aside = SaidAside()

        def ahead(item: Item):
            # read and plan here; a worker only for the write, its words after the plan's
            step, said = aside.run(self.begin, item, result)
            if isinstance(step, Outcome):
                return Ready((step, said))
            return lambda: _then_said(said, aside.run(step))

        with aside.over(self, "warn"), aside.over(transport, "on_warning"):
            for _, future in in_order(items, lambda item: aside.run(self.apply_one, item, result), workers=workers,
                                      alone=lambda item: not _independent(item), key=_object_key, ahead=ahead):
                outcome, said = future.result()
                aside.replay(said)
                yield outcome

    def _warm(self, items: list[Item], lists) -> None:
        """Discovery and schemas for the kinds to be written side by side, read before the threads
        start (their caches are filled by whoever asks first). Their LISTs start first, on the
        `lists` pool: the server answers them while this thread loads the schemas."""
        resources = {}
        for api_version, kind in {(str(i.obj.get("apiVersion")), str(i.obj.get("kind"))) for i in items
                                  if _independent(i)}:
            try:
                resources[api_version, kind] = self.session.discovery.for_kind(api_version, kind)
            except Exception:  # noqa: BLE001 - the item reports it when it is applied
                continue
        for (api_version, kind, written), size in self._group_sizes.items():
            r = resources.get((api_version, kind))
            # a namespace as settle_namespace will fill it in; the kinds here are all namespaced
            namespace = written or self.options.namespace
            if r is not None and r.namespaced and namespace and size >= PREFETCH_MIN_OBJECTS:
                self._early[api_version, kind, written] = namespace, lists.submit(self._list, r, namespace)
        for key in resources:
            self.schema_for(*key)

    def apply_one(self, item: Item, result: Result) -> Outcome:
        step = self.begin(item, result)
        return step if isinstance(step, Outcome) else step()

    def begin(self, item: Item, result: Result) -> "Outcome | Callable[[], Outcome]":
        """The item's reads and plan: its outcome when nothing is to be written, else the write
        still to do (which gives the outcome)."""
        try:
            self.resolve(item)
        except ObjectError as err:
            return Outcome(item, error=err)
        if item.resource.namespaced:
            result.visited_namespaces.add(item.namespace)
        step = self._guarded(item, result, self._decide)
        if isinstance(step, Outcome):
            return step
        return lambda: self._guarded(item, result, lambda _: step())

    def _guarded(self, item: Item, result: Result, work: Callable) -> Any:
        """work(item): an Outcome (its failure as the item's outcome, its object noted as visited)
        or the write still to do."""
        from kubelite.client.errors import ApiError

        try:
            outcome = work(item)
        except (SourcedError, ApiError) as err:
            return Outcome(item, error=err)
        except lastapplied.ConfigurationError as err:
            return Outcome(item, error=sourced("creating", item.source, err))
        if not isinstance(outcome, Outcome):
            return outcome
        uid = ((outcome.obj or {}).get("metadata") or {}).get("uid")
        if uid:
            result.visited_uids.add(uid)
        if is_crd(item.obj) and self.options.dry_run == "none" and outcome.error is None:
            self._await_established(item)
        return outcome

    def _apply(self, item: Item) -> Outcome:
        step = self._decide(item)
        return step if isinstance(step, Outcome) else step()

    def _decide(self, item: Item) -> "Outcome | Callable[[], Outcome]":
        """The outcome when no request is needed, else the request to send (a create or a patch)."""
        if not item.name:
            _refuse_nameless(item)
        live, listed = self._live(item)
        if live is not None and self.options.dry_run == "client":
            # kubectl computes no patch under client dry-run: no warning, never `unchanged`, and
            # the live object as it read it
            return Outcome(item, PATCH, live)
        action = self.plan(item, live)
        for warning in action.warnings:
            self.warn(warning)
        if action.verb == CREATE:
            if self.options.dry_run == "client":
                return Outcome(item, CREATE, action.body)
            return lambda: self._create(item, action, listed)
        if action.verb == UNCHANGED:
            return Outcome(item, UNCHANGED, live)
        if self.options.dry_run == "client":
            # kubectl sends nothing and prints the live object as it read it
            return Outcome(item, PATCH, live)
        return lambda: self._patch(item, live, action)

    def _live(self, item: Item) -> tuple[dict | None, bool]:
        """The live object (None if absent), and whether it came from a LIST made earlier."""
        from kubelite.client.errors import ApiError, is_not_found

        listed = self._listing(item)
        if listed is not None:
            found, live = listed.take(item.name)
            if found:
                return live, True
        try:
            return self.session.client.get(item.resource, item.name, item.namespace or None), False
        except ApiError as err:
            if not is_not_found(err):
                raise sourced("retrieving current configuration of", item.source, err) from None
            return None, False

    def _listing(self, item: Item) -> "_Listed | None":
        """The LIST of the item's kind in its namespace, made once when enough objects of the run
        share them; None: read each object alone (few of them, or a LIST refused where GETs may
        not be)."""
        group = self._groups.get(id(item))
        with self._listing_lock:  # items applied side by side share one LIST
            if group not in self._prefetched:
                r = item.resource
                namespace, early = self._early.pop(group, (None, None))
                if early is not None and namespace == item.namespace:
                    pages = early.result()
                elif self._group_sizes.get(group, 0) < PREFETCH_MIN_OBJECTS or (r.namespaced and not item.namespace):
                    pages = None
                else:
                    pages = self._list(r, item.namespace or None)
                self._prefetched[group] = _Listed(pages) if pages is not None else None
        return self._prefetched[group]

    def _list(self, r, namespace: str | None) -> list[dict] | None:
        """The LIST's pages; None when the server refuses it (each object is read alone then)."""
        from kubelite.client.errors import ApiError

        try:
            return list(self.session.client.list_pages(r, namespace))
        except ApiError:
            return None

    def plan(self, item: Item, live: dict | None) -> Action:
        from kubelite.apply.patching import ApplyPatchError

        try:
            return plan_object(item.obj, live, overwrite=self.options.overwrite, schema_for=self.schema_for,
                               object_name=item.object_name(), base=self.options.base)
        except ApplyPatchError as err:
            raise sourced("applying patch", item.source, err) from None

    def schema_for(self, api_version: str, kind: str) -> Any:
        """Strategic-merge metadata for built-in kinds; None (JSON merge patch) for the rest."""
        key = (api_version, kind)
        if key not in self._schemas:
            from kubelite.apply.patching import builtin_schema

            self._schemas[key] = builtin_schema(api_version, kind)
        return self._schemas[key]

    def _params(self):
        from kubelite.client.dynamic import WriteParams

        return WriteParams(dry_run=self.options.dry_run == "server", field_manager=self.options.field_manager,
                           field_validation=self.options.validation)

    def _create(self, item: Item, action: Action, listed: bool) -> Outcome:
        from kubelite.client.errors import ApiError

        try:
            created = self.session.client.create(item.resource, item.namespace or None, action.body, self._params())
        except ApiError as err:
            # The LIST is older than this moment: a controller (or another client) may have
            # made the object since. kubectl, reading it now, would patch it: so do we.
            if listed and err.reason == "AlreadyExists":
                return self._apply(item)
            raise sourced("creating", item.source, err) from None
        return Outcome(item, CREATE, created)

    def _patch(self, item: Item, live: dict, action: Action) -> Outcome:
        from kubelite.client.errors import ApiError

        client, r = self.session.client, item.resource
        attempt = 0
        while True:
            try:
                patched = client.patch(r, item.namespace or None, item.name, action.patch.text(),
                                       action.patch.content_type, self._params())
                return Outcome(item, PATCH, patched)
            except ApiError as err:
                if err.reason == "Conflict" and attempt < self.options.max_retries:
                    attempt += 1
                    if attempt > 1:
                        time.sleep(self.options.retry_sleep)
                    live = self._reread(item)
                    action = self.plan(item, live)
                    if action.verb == UNCHANGED:
                        return Outcome(item, UNCHANGED, live)
                    continue
                if err.reason in ("Conflict", "Invalid") and self.options.force:
                    return self._delete_and_create(item, live, action)
                # kubectl wraps twice: the patcher names the source, apply adds the patch and object
                what = f"applying patch:\n{action.patch.text()}\nto:\n{describe(item)}\nfor:"
                raise sourced(what, item.source, sourced("patching", item.source, err)) from None

    def _reread(self, item: Item) -> dict:
        from kubelite.client.errors import ApiError

        try:
            return self.session.client.get(item.resource, item.name, item.namespace or None)
        except ApiError as err:
            raise sourced("patching", item.source, err) from None

    def _delete_and_create(self, item: Item, live: dict, action: Action) -> Outcome:
        """--force: replace an object whose patch the server rejects (kubectl's deleteAndCreate)."""
        from kubelite.client.errors import ApiError, is_not_found

        client, r, ns = self.session.client, item.resource, item.namespace or None
        grace = self.options.grace_period if self.options.grace_period >= 0 else None
        try:
            client.delete(r, ns, item.name, grace_period_seconds=grace, propagation_policy="Background")
            deadline = time.monotonic() + (self.options.timeout or CRD_WAIT_SECONDS)
            while time.monotonic() < deadline:
                try:
                    client.get(r, item.name, ns)
                except ApiError as err:
                    if is_not_found(err):
                        break
                    raise
                time.sleep(0.2)
            modified, _ = lastapplied.modified_configuration(item.obj)
            try:
                return Outcome(item, PATCH, client.create(r, ns, modified, self._params()))
            except ApiError:
                restore = {k: v for k, v in live.items() if k != "status"}
                restore["metadata"] = {k: v for k, v in live["metadata"].items()
                                       if k not in ("resourceVersion", "uid", "creationTimestamp")}
                client.create(r, ns, restore, self._params())
                raise
        except ApiError as err:
            raise sourced("patching", item.source, err) from None

    def _await_established(self, item: Item) -> None:
        """Wait until the CRD serves its kind, then let discovery see it."""
        from kubelite.client.errors import ApiError

        deadline = time.monotonic() + CRD_WAIT_SECONDS
        while time.monotonic() < deadline:
            try:
                crd = self.session.client.get(item.resource, item.name)
            except ApiError:
                return
            conditions = (crd.get("status") or {}).get("conditions") or []
            if any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions):
                break
            time.sleep(0.1)
        refresh_discovery(self.session.discovery)


class _Listed:
    """A LIST's objects by name. Each name is answered from it once: a second object of the same
    name in the run (or a retry) reads the object again, as the first may have changed it."""

    def __init__(self, pages: list[dict]):
        self.objects: dict[str, dict] = {}
        for page in pages:
            kind = str(page.get("kind") or "")
            for obj in page.get("items") or ():
                # a LIST's items carry no kind and apiVersion; a GET's do, first
                obj = {"kind": kind[:-4] if kind.endswith("List") else kind, "apiVersion": page.get("apiVersion"),
                       **obj}
                self.objects[str((obj.get("metadata") or {}).get("name") or "")] = obj
        self.used: set[str] = set()

    def take(self, name: str) -> tuple[bool, dict | None]:
        if name in self.used:
            return False, None
        self.used.add(name)
        return True, self.objects.pop(name, None)


def _then_said(said: list, done: tuple) -> tuple:
    """A write's (outcome, words) after what its plan said."""
    outcome, more = done
    return outcome, said + more


def _independent(item: Item) -> bool:
    from kubelite.client.inorder import independent

    return independent(str(item.obj.get("apiVersion") or ""), str(item.obj.get("kind") or ""))


def _object_key(item: Item) -> tuple:
    """Items that may name one object (the namespace may be filled in later) are never in flight together."""
    return str(item.obj.get("kind") or ""), str((item.obj.get("metadata") or {}).get("name") or "")


def _group(item: Item) -> tuple:
    """Objects listed together: one kind in one namespace (as written: the default namespace fills
    in the same way for all of them)."""
    meta = item.obj.get("metadata") or {}
    return (str(item.obj.get("apiVersion") or ""), str(item.obj.get("kind") or ""), str(meta.get("namespace") or ""))


def _refuse_nameless(item: Item) -> None:
    """kubectl's errors for an object without a name: before any request (generateName), or as
    client-go's refusal to GET an empty name."""
    generate_name = (item.obj.get("metadata") or {}).get("generateName")
    if generate_name:
        raise SourcedError("", "", ValueError(f"from {generate_name}: cannot use generate name with apply"))
    raise SourcedError(f"retrieving current configuration of:\n{describe(item)}\nfrom server for:", item.source,
                       ValueError("resource name may not be empty"))


def describe(item: Item) -> str:
    """cli-runtime's Info.String(): the mapping, then name and namespace."""
    r = item.resource
    return (f'Resource: "{r.group}/{r.version}, Resource={r.resource}", GroupVersionKind: '
            f'"{r.group}/{r.version}, Kind={r.kind}"\nName: "{item.name}", Namespace: "{item.namespace}"')


def refresh_discovery(discovery) -> None:
    # Discovery refetches at most once per run on a miss; a CRD created by this run must be
    # visible to the objects after it, so the cached view is dropped explicitly.
    discovery.invalidate()
    discovery.refresh()


def _selector(text: str | None):
    if not text:
        return None
    from kubelite.server.selectors import parse_label_selector

    return parse_label_selector(text)
