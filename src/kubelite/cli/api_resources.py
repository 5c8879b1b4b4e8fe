"""`kubelite api-resources`: the resources the server serves, as kubectl api-resources prints them."""
from __future__ import annotations

import sys

from kubelite.cli import common

EXAMPLES = """\
  # Every resource, and with verbs and categories
  kubelite api-resources
  kubelite api-resources -o wide

  # Sorted by kind; namespaced ones only; one API group; only resources supporting verbs
  kubelite api-resources --sort-by=kind
  kubelite api-resources --namespaced=true
  kubelite api-resources --api-group=apps
  kubelite api-resources --verbs=list,get
"""


def build_parser() -> common.Parser:
    p = common.parser("api-resources", "Print the supported API resources on the server.", EXAMPLES)
    common.add_connection_flags(p)
    p.add_argument("-n", "--namespace", help="accepted for kubectl compatibility")
    p.add_argument("-o", "--output", default="", help="wide|name")
    p.add_argument("--api-group", default=None, help="only resources in this API group ('' for the core group)")
    p.add_argument("--namespaced", default=None, nargs="?", const="true",
                   help="true: only namespaced resources; false: only cluster-scoped ones")
    p.add_argument("--verbs", action="append", default=[], help="only resources supporting these verbs")
    p.add_argument("--categories", action="append", default=[], help="only resources in these categories")
    p.add_argument("--sort-by", default="", help="name or kind")
    p.add_argument("--no-headers", action="store_true", help="omit the header line")
    p.add_argument("--cached", action="store_true", help="accepted for kubectl compatibility")
    from kubelite.cli.help import installed

    return installed(p, "api-resources")


def run(argv: list[str]) -> int:
    return common.run(build_parser(), argv, _api_resources)


def _split(values: list[str]) -> list[str]:
    return [v for value in values for v in value.split(",") if v]


def _api_resources(args) -> int:
    if args.output not in ("", "wide", "name"):
        raise common.CommandError(f"error: --output {args.output} is not available")
    if args.sort_by not in ("", "name", "kind"):
        raise common.CommandError(f"error: --sort-by accepts only name or kind")
    namespaced = None
    if args.namespaced is not None:
        if args.namespaced.lower() not in ("true", "false", "1", "0", "t", "f"):
            raise common.CommandError(f'error: invalid argument "{args.namespaced}" for "--namespaced" flag: '
                                      f'strconv.ParseBool: parsing "{args.namespaced}": invalid syntax')
        namespaced = args.namespaced.lower() in ("true", "1", "t")
    sess = common.session(args)
    resources = select(sess.discovery.preferred(), args.api_group, namespaced, _split(args.verbs),
                       _split(args.categories))
    sys.stdout.write(render(resources, args.output, args.sort_by, args.no_headers))
    return 0


def select(resources: list, api_group: str | None, namespaced: bool | None, verbs: list[str],
           categories: list[str]) -> list:
    chosen = []
    for r in resources:
        if "/" in r.resource:
            continue
        if api_group is not None and r.group != api_group:
            continue
        if namespaced is not None and r.namespaced != namespaced:
            continue
        if verbs and not set(verbs) <= set(r.verbs):
            continue
        if categories and not set(categories) <= set(r.categories):
            continue
        chosen.append(r)
    return chosen


def render(resources: list, output: str, sort_by: str, no_headers: bool) -> str:
    """kubectl's table (or -o name lines): core group first, then groups by name, names within."""
    if sort_by == "name":
        ordered = sorted(resources, key=lambda r: r.resource)
    elif sort_by == "kind":
        ordered = sorted(resources, key=lambda r: r.kind)
    else:
        ordered = sorted(resources, key=lambda r: (r.group, r.resource))
    if output == "name":
        return "".join(f"{r.resource}.{r.group}\n" if r.group else f"{r.resource}\n" for r in ordered)
    from kubelite.manifest.table import TabWriter

    writer = TabWriter()
    columns = ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]
    if output == "wide":
        columns += ["VERBS", "CATEGORIES"]
    if not no_headers:
        writer.write("\t".join(columns) + "\n")
    for r in ordered:
        cells = [r.resource, ",".join(r.short_names), r.api_version, "true" if r.namespaced else "false", r.kind]
        if output == "wide":
            cells += [",".join(sorted(r.verbs)), ",".join(r.categories)]
        writer.write("\t".join(cells) + "\n")
    writer.flush()
    return writer.getvalue()
