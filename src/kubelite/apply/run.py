"""One apply run, as `kubelite apply` and the Python API both drive it.

The steps, in kubectl's order: prepare the items (selector, dependency order), claim them for
an ApplySet if one is named, apply each, then — only when every object applied — prune what
the configuration no longer holds and optionally wait for the pruned objects to be gone.
The caller reports outcomes as they come (`on_outcome`) and decides what to print; nothing
here writes to a terminal.
"""
from __future__ import annotations

import os
from kubelite.apply.engine import Applier, ApplyOptions, Outcome, Result
from kubelite.record import Record, factory

TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Callable

PROPAGATION = {"background": "Background", "foreground": "Foreground", "orphan": "Orphan", "true": "Background",
               "false": "Orphan"}


class PruneOptions(Record):
    """What `--prune` deletes: by label selector and allowlist, or through an ApplySet parent."""

    selector: str | None = None
    allowlist: list[str] = factory(list)
    applyset: str = ""              # [RESOURCE][.GROUP]/NAME of the ApplySet parent
    cascade: str = "background"     # background | foreground | orphan
    grace_period: int = -1


def propagation(cascade: str) -> str:
    """The DeleteOptions propagationPolicy for a --cascade value; kubectl's error otherwise."""
    try:
        return PROPAGATION[str(cascade).lower()]
    except KeyError:
        raise ValueError(f'invalid cascade value ({cascade}). Must be "background", "foreground", or '
                         '"orphan".') from None


class ApplyRun:
    """Apply manifests (objects with `.obj` and `.source`) through a session, then prune."""

    def __init__(self, session, options: ApplyOptions, *, prune: PruneOptions | None = None,
                 on_outcome: Callable[[Outcome], None] | None = None, warn: Callable[[str], None] | None = None,
                 applier_class: type[Applier] = Applier, **applier_options):
        """`applier_class` (with its own keyword options) chooses how objects are written:
        client-side apply by default, or apply/serverside.ServerSideApplier."""
        self.session = session
        self.options = options
        self.prune_options = prune
        self.warn = warn or (lambda text: None)
        self.applier = applier_class(session, options, on_outcome=on_outcome, warn=self.warn, **applier_options)
        self.applyset = None

    def apply(self, manifests) -> Result:
        items = self.applier.prepare(manifests)
        if self.prune_options is not None and self.prune_options.applyset:
            from kubelite.apply.applyset import ApplySet

            self.applyset = ApplySet.for_run(self.session, self.prune_options.applyset,
                                             namespace=self.options.namespace,
                                             namespace_explicit=self.options.enforce_namespace)
            self.applyset.before_apply(self.applier, items, self.options.dry_run)
        return self.applier.run(items)

    def prune(self, result: Result) -> list[dict]:
        """The objects pruned (or that would be, under a dry run) after a successful apply."""
        spec = self.prune_options or PruneOptions()
        dry_run = self.options.dry_run
        if self.applyset is not None:
            return self.applyset.prune(self.applier, result, dry_run, propagation=propagation(spec.cascade),
                                       grace_period=spec.grace_period)
        from kubelite.apply.prune import Pruner

        if not spec.allowlist:
            # kubectl's namespace is never empty (it defaults to "default"), so its default allowlist,
            # which still takes cluster-scoped kinds, always draws this klog warning
            self.warn(klog_warning("prune.go:71", "Deprecated: kubectl apply will no longer prune non-namespaced "
                                   "resources by default when used with the --namespace flag in a future release. "
                                   "To preserve the current behaviour, list the resources you want to target "
                                   "explicitly in the --prune-allowlist flag."))
        pruner = Pruner(self.session, selector=spec.selector, allowlist=spec.allowlist,
                        namespace_specified=self.options.enforce_namespace, dry_run=dry_run,
                        grace_period=spec.grace_period, propagation=propagation(spec.cascade))
        return pruner.prune(result)

    def wait_pruned(self, pruned: list[dict]) -> None:
        """--wait: until every pruned object is gone (a no-op under a dry run)."""
        if self.options.dry_run != "none":
            return
        from kubelite.apply.prune import wait_deleted

        wait_deleted(self.session, pruned, self.options.timeout)


def klog_warning(location: str, message: str) -> str:
    """klog's text header for a warning: severity, date, time, pid, source location."""
    import datetime  # (~2.5 ms of an apply's start, for a warning few runs print)

    now = datetime.datetime.now()
    return f"W{now:%m%d %H:%M:%S}.{now.microsecond:06d} {os.getpid():>7} {location}] {message}"
