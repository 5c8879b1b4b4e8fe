"""The files `kubelite serve` keeps in its data directory's pki/: the CA and serving certificate
(server/tls.py), the admin's client certificate (auth/certs.py) and the service-account signing
key (auth/signing.py). Each install makes its own; none ever ships with kubelite.

Making them needs the `cryptography` package, whose import is most of the cost (~25 ms in a
server that has imported the rest; the keys and signatures themselves take ~5 ms). So a first
start (or one whose certificates expire) makes them in a forked child, on another core while the
server imports its modules and fills its store, and waits for it only before the cluster is
built; the server itself does not import `cryptography` before it is ready. A start that finds
them all current (read without `cryptography`: tls.not_after) forks nothing. A child that fails
is done again in-process, which reports what went wrong as a start without a child would; where
fork is not what it is on Linux, the files are made in-process.
"""
from __future__ import annotations

import os
import pathlib
import sys

from kubelite.server import tls
from kubelite.server.auth import certs

SA_KEY = "sa.key"  # auth.signing.KEY_FILE


def current(pki: pathlib.Path, admin: bool) -> bool:
    """Whether every file is there and no certificate expires within the day (what the
    ensure_* functions would leave as it is)."""
    names = [tls.CA_CERT, tls.CA_KEY, tls.SERVER_CERT, tls.SERVER_KEY, SA_KEY]
    if admin:
        names += [certs.ADMIN_CERT, certs.ADMIN_KEY]
    try:
        if not all((pki / name).stat().st_size for name in names):
            return False
        return not any(tls._expired(pki / name) for name in [tls.SERVER_CERT] + ([certs.ADMIN_CERT] if admin else []))
    except OSError:
        return False


def ensure(pki: pathlib.Path, admin: bool) -> None:
    """Make what is missing or expiring, in this process."""
    from kubelite.server.auth.signing import Signer

    tls.ensure_tls(pki)
    Signer.load_or_create(pki / SA_KEY)
    if admin:
        certs.admin_certificate(pki)


class Pending:
    """The files being made (or already there): `wait()` returns once they are."""

    def __init__(self, pki: pathlib.Path, admin: bool, child: int | None):
        self.pki, self.admin, self.child = pki, admin, child

    def wait(self) -> None:
        child, self.child = self.child, None
        if child is None:
            return
        _, status = os.waitpid(child, 0)
        if os.waitstatus_to_exitcode(status) != 0 or not current(self.pki, self.admin):
            ensure(self.pki, self.admin)


def start(pki: str | os.PathLike, admin: bool) -> Pending:
    """Begin making the files `pki` lacks (the CA, serving certificate and signing key; the
    admin's client certificate with `admin`); nothing to do if all are current. Call it before
    the process has threads: the child is forked."""
    pki = pathlib.Path(pki)
    if current(pki, admin):
        return Pending(pki, admin, None)
    if not sys.platform.startswith("linux"):
        ensure(pki, admin)
        return Pending(pki, admin, None)
    child = os.fork()
    if child == 0:  # the child: make the files, and leave without running the parent's exit handlers
        status = 1
        try:
            ensure(pki, admin)
            status = 0
        finally:
            os._exit(status)
    return Pending(pki, admin, child)
