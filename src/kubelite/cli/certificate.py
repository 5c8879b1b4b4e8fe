"""`kubelite certificate approve|deny`: decide CertificateSigningRequests, as kubectl 1.32 does.

Each CSR (by name, or read from -f/-k) is fetched again and given an Approved (KubectlApprove) or
Denied (KubectlDeny) condition through its /approval subresource; one that already has the
condition is left alone unless --force, one with the opposite condition is an error. What is
printed is the CSR as it was fetched (`certificatesigningrequest.certificates.k8s.io/NAME
approved`, or -o). A conflict with another writer is retried ten times on a fresh copy. The
cluster's signer then issues the certificate of an approved request (see
kubelite.server.controllers.csr_signing).
"""
from __future__ import annotations

import argparse
import datetime
import sys

from kubelite.cli import common
from kubelite.cli.certificate_help import HELP

RESOURCE = "certificatesigningrequests.certificates.k8s.io"
_DECISIONS = {
    "approve": ("Approved", "Denied", "KubectlApprove", "This CSR was approved by kubectl certificate approve.",
                "approved"),
    "deny": ("Denied", "Approved", "KubectlDeny", "This CSR was denied by kubectl certificate deny.", "denied"),
}
_RETRIES = 10


def run(argv: list[str]) -> int:
    from kubelite.cli import command_line

    # the subcommand is the first word that is no flag's value, wherever the flags stand
    flags = command_line.ROOT_SWITCHES | command_line.parser_switches(build_parser())
    words = command_line.strip_flags(argv, flags)
    if not words or words[0] not in _DECISIONS:
        from kubelite.cli.help import render

        sys.stdout.write(render(HELP["certificate"]))  # kubectl prints the help for anything else
        return 0
    decision = words[0]
    rest = command_line.without_word(argv, decision, flags)
    return common.run(_parser(decision), rest, lambda args: _decide(args, decision))


def build_parser() -> common.Parser:
    """The flags the command line search must know at `certificate` (those of its subcommands)."""
    return _parser("approve")


def _parser(decision: str) -> common.Parser:
    from kubelite.cli.help import install

    p = common.parser(f"certificate {decision}", HELP[f"certificate {decision}"].description)
    p.add_argument("names", nargs="*", help=argparse.SUPPRESS)
    common.add_connection_flags(p)
    p.add_argument("-n", "--namespace", default=None, help=argparse.SUPPRESS)
    p.add_argument("-f", "--filename", action="append", default=[])
    p.add_argument("-k", "--kustomize", default="")
    p.add_argument("-R", "--recursive", action="store_true")
    p.add_argument("--force", action="store_true")
    common.add_output_flag(p)
    common.add_template_flags(p)
    return install(p, HELP[f"certificate {decision}"])


def _decide(args, decision: str) -> int:
    if not args.names and not args.filename and not args.kustomize:
        raise common.CommandError("error: one or more CSRs must be specified as <name> or -f <filename>")
    from kubelite.client.errors import ClientError

    output = common.output_of(args)
    sess = common.session(args)
    info = sess.discovery.resolve(RESOURCE)
    errors: list = []
    found = 0
    printer = common.ObjectPrinter(output)
    for target in _targets(sess, args, info, errors):
        try:
            fetched = _decide_one(sess, info, target, decision, args.force)
        except (common.CommandError, ClientError) as err:  # reported with the others: kubectl goes on
            errors.append(err)
            continue
        found += 1
        if output.kind:
            printer.print(fetched)
        else:
            sys.stdout.write(common.success_line(fetched, _DECISIONS[decision][4], "none"))
    if not found and not errors:
        sys.stdout.write("No resources found\n")
    return common.report(errors) if errors else 0


def _targets(sess, args, info, errors: list):
    """The CSRs named or read from files: (name, the builder's Request for a file object, or None)."""
    if args.names:
        return [(name, None) for name in args.names]
    selection = common.build(sess, args, [], verb="certificate", errors=errors)
    return [(request.name, request) for request in selection.requests]


def _decide_one(sess, info, target, decision: str, force: bool) -> dict:
    """Give one CSR the decision; the CSR as fetched (what kubectl prints)."""
    name, from_file = target
    if from_file is not None:
        _check_file_object(sess, from_file)
    from kubelite.client.errors import is_conflict

    fetched = common.with_type(sess.client.get(info, name), info)
    for attempt in range(_RETRIES + 1):
        decided, already = _with_condition(fetched, decision)
        if already and not force:
            return fetched
        try:
            sess.client.replace(info, None, name, decided, subresource="approval")
            return fetched
        except Exception as err:
            if not is_conflict(err) or attempt == _RETRIES:
                raise
            fetched = common.with_type(sess.client.get(info, name), info)  # another writer won: again
    return fetched


def _check_file_object(sess, request) -> None:
    """kubectl's builder fetches a file's object as named there (a namespaced one without a
    namespace cannot be fetched), then only CSRs are handled."""
    r, meta = request.resource, (request.obj or {}).get("metadata") or {}
    if r.namespaced and not meta.get("namespace"):
        raise common.CommandError(f'error: no namespace set on resource {r.group}/{r.version}, '
                                  f'Resource={r.resource} "{request.name}"')
    sess.client.get(r, request.name, namespace=meta.get("namespace") if r.namespaced else None)
    if (r.kind, r.group) != ("CertificateSigningRequest", "certificates.k8s.io"):
        shown = f"{r.kind}.{r.group}" if r.group else r.kind
        raise common.CommandError(f"error: can only handle CertificateSigningRequest.certificates.k8s.io "
                                  f"objects, got {shown}")


def _with_condition(csr: dict, decision: str) -> tuple[dict, bool]:
    """(the CSR with the decision's condition added, whether it had it already)."""
    wanted, opposite, reason, message, _ = _DECISIONS[decision]
    conditions = list((csr.get("status") or {}).get("conditions") or [])
    for condition in conditions:
        if condition.get("type") == opposite:
            raise common.CommandError(f'error: certificate signing request "{csr["metadata"]["name"]}" is already '
                                      f"{opposite}")
    if any(c.get("type") == wanted for c in conditions):
        return csr, True
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    conditions.append({"type": wanted, "status": "True", "reason": reason, "message": message,
                       "lastUpdateTime": now})
    return {**csr, "status": {**(csr.get("status") or {}), "conditions": conditions}}, False
