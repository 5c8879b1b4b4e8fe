"""`kubelite serve`: run the embedded Kubernetes API server over HTTPS, in the foreground."""
from __future__ import annotations

import argparse
import pathlib
import sys

from kubelite.home import kubelite_home


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="kubelite serve",
                                     description="Serve the Kubernetes API over HTTPS (foreground).")
    parser.add_argument("--data-dir", default=None,
                        help="where objects, the CA, certificate and token live (default: $KUBELITE_HOME "
                             "or ~/.kubelite)")
    parser.add_argument("--address", "--bind-address", dest="address", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=6443, help="0 picks a free port")
    parser.add_argument("--write-kubeconfig", metavar="FILE", default=None,
                        help="write a kubeconfig for this server (CA and admin credentials embedded)")
    parser.add_argument("--kubeconfig-auth", choices=("token", "client-certificate"), default="client-certificate",
                        help="how the written kubeconfig's admin authenticates: a client certificate (CN "
                             "kubernetes-admin, O system:masters) as kind's kubeconfigs do (the default), or "
                             "the bearer token")
    parser.add_argument("--token-auth-file", default=None, metavar="FILE",
                        help="static bearer tokens, one 'token,user,uid[,\"group1,group2\"]' per line "
                             "(kube-apiserver's CSV format)")
    parser.add_argument("--anonymous-auth", type=_bool, nargs="?", const=True, default=True,
                        help="requests without credentials run as system:anonymous (RBAC decides); false: 401")
    parser.add_argument("--nodes", type=int, default=1, help="how many simulated nodes run pods (default 1)")
    parser.add_argument("--controllers", default="*",
                        help="controllers to run, as kube-controller-manager's flag: '*' all, 'NAME' on, "
                             "'-NAME' off ('-*': an API server alone)")
    parser.add_argument("--storage", default=None,
                        help="storage URL: sqlite:PATH, etcd://HOST:PORT[,HOST:PORT...] or memory: "
                             "(default: sqlite database in the data dir)")
    parser.add_argument("--etcd-cafile", default=None, help="CA bundle to verify etcd's certificate (https)")
    parser.add_argument("--etcd-certfile", default=None, help="client certificate for etcd")
    parser.add_argument("--etcd-keyfile", default=None, help="client key for etcd")
    parser.add_argument("--etcd-compaction-interval", type=_duration, default=300.0,
                        help="how often to compact the store's history (0 never)")
    parser.add_argument("--leader-elect", type=_bool, nargs="?", const=True, default=True,
                        help="run the controllers only while holding the kube-controller-manager Lease")
    parser.add_argument("--leader-elect-lease-duration", type=_duration, default=15.0)
    parser.add_argument("--leader-elect-renew-deadline", type=_duration, default=10.0)
    parser.add_argument("--leader-elect-retry-period", type=_duration, default=2.0)
    parser.add_argument("--request-timeout", type=_go_duration, default=60.0, metavar="DURATION",
                        help="the longest a request that is not a watch may take (Go duration, default 1m0s), "
                             "as kube-apiserver's flag; a client's ?timeout= may ask for less")
    parser.add_argument("--service-cluster-ip-range", type=_service_range, default=None, metavar="CIDR",
                        help="the IPv4 range Services' cluster IPs come from, as kube-apiserver's flag "
                             "(default 10.0.0.0/24, its own; a mask of /12 to /30); its first address is "
                             "the kubernetes Service's")
    parser.add_argument("--workers", type=_at_least_one, default=1,
                        help="processes serving the port, on one shared store (default 1)")
    from kubelite.cli.help import installed

    args = installed(parser, "serve").parse_args(argv)

    data_dir = pathlib.Path(args.data_dir).expanduser() if args.data_dir else kubelite_home()
    pki = None
    if args.workers == 1:
        # A first start's certificates are made on another core while the server imports and
        # fills its store (server/pki.py); build_server waits for them.
        admin = bool(args.write_kubeconfig) and args.kubeconfig_auth == "client-certificate"
        try:
            pki = _start_pki(data_dir, admin)
        except Exception as err:
            print(f"error: cannot start the API server in {data_dir}: {err}", file=sys.stderr)
            return 1
    sock, worker = None, 0
    if args.workers > 1:  # bound and forked before any store or thread exists (server/workers.py)
        from kubelite.server import workers

        try:
            workers.check_storage(storage_url(args))
            workers.prepare_shared_files(data_dir, storage_url(args))
        except Exception as err:
            print(f"error: cannot start the API server in {data_dir}: {err}", file=sys.stderr)
            return 1
        sock = _bind(args)
        if sock is None:
            return 1
        worker = workers.fork_workers(args.workers)
        if worker:
            args.write_kubeconfig = None  # worker 0 writes it
    try:
        storage = storage_url(args)
        times = election_times(args)
        tokens = _static_tokens(args.token_auth_file)
        from kubelite.server.controllers import select_controllers

        controllers = select_controllers(args.controllers)
        server = build_server(data_dir, storage, args.nodes, controllers, pki, args.service_cluster_ip_range)
        if tokens:
            server.app.auth.authn.add_tokens(tokens)
        server.app.auth.authn.anonymous = args.anonymous_auth
        server.app.request_timeout = args.request_timeout
    except Exception as err:  # a clear one-line error, never a traceback
        print(f"error: cannot start the API server in {data_dir}: {err}", file=sys.stderr)
        return 1
    from kubelite.server.serve import serve

    sock = sock or _bind(args)
    if sock is None:
        return 1
    port = sock.getsockname()[1]
    host = f"[{args.address}]" if ":" in args.address else args.address
    url = f"https://{host}:{port}"
    if args.write_kubeconfig:
        from kubelite.server.kubeconfig import write_kubeconfig

        client_cert = None
        if args.kubeconfig_auth == "client-certificate":
            from kubelite.server.auth.certs import admin_certificate

            client_cert = admin_certificate(server.tls.ca_cert.parent)
        write_kubeconfig(args.write_kubeconfig, url, server.tls.ca_pem(), server.token, client_cert=client_cert)

    _log_controllers()
    server.cluster.advertise(args.address, port)
    if args.leader_elect:
        server.cluster.manager.elect(times)
    else:  # kube-controller-manager --leader-elect=false: the controllers run whoever else does
        server.cluster.manager.elector = None

    def started():
        # The controllers start once the API is listening: their first round (tokens, CA
        # ConfigMaps, nodes, leases) no longer competes with the server's own start.
        server.cluster.start()
        from kubelite.server import warmup

        warmup.start()
        if worker:
            return
        print(f"kubelite API server listening on {url} (data in {data_dir})", file=sys.stderr, flush=True)

    from kubelite.server.storage.compactor import Compactor

    # Only a serving process compacts (as kube-apiserver drives etcd); in-process users do not.
    interval = args.etcd_compaction_interval
    compactor = Compactor(server.store, interval).start() if interval > 0 and not worker else None
    # What the start built (modules, schemas, the registry, the policy) lives as long as the
    # process: out of the collector's way, its full collections no longer walk it all again.
    import gc

    gc.freeze()
    try:
        serve(server.app, sock, str(server.tls.server_cert), str(server.tls.server_key), on_started=started,
              client_ca=str(server.tls.ca_cert))
    finally:
        if compactor is not None:
            compactor.stop()
        server.close()
        if args.workers > 1 and not worker:
            workers.stop_workers()
    return 0


def _start_pki(data_dir: pathlib.Path, admin: bool):
    from kubelite.server import pki
    from kubelite.server.private import private_dir

    private_dir(data_dir)
    return pki.start(data_dir / "pki", admin)


def _at_least_one(text: str) -> int:
    import argparse

    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"invalid count {text!r} (1 or more)")
    return int(text)


def _service_range(text: str) -> str:
    import argparse

    from kubelite.server.admission.plugins import service_cidr

    try:
        return service_cidr(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _bind(args):
    """The listening socket, or None after a one-line error."""
    from kubelite.server.serve import bind

    try:
        return bind(args.address, args.port)
    except OSError as err:
        print(f"error: cannot listen on {args.address}:{args.port}: {err.strerror or err}", file=sys.stderr)
        return None


def _static_tokens(path: str | None) -> dict:
    if not path:
        return {}
    from kubelite.server.auth.authn import read_token_file

    return read_token_file(path)


def _go_duration(text: str) -> float:
    """A flag taking time.ParseDuration's syntax, as kube-apiserver's --request-timeout."""
    import argparse

    from kubelite.server.gotime import parse_duration

    try:
        seconds = parse_duration(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    if seconds <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, not {text}")
    return seconds


def _duration(text: str) -> float:
    """A Go duration (15s, 1m30s, 500ms) or plain seconds, as kube-controller-manager's flags take."""
    import argparse
    import re

    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|h|m|s)", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise argparse.ArgumentTypeError(f"invalid duration {text!r} (e.g. 15s, 1m30s, 500ms)")
    units = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
    return sum(float(n) * units[u] for n, u in parts)


def _bool(text: str) -> bool:
    import argparse

    if text.lower() in ("1", "t", "true"):
        return True
    if text.lower() in ("0", "f", "false"):
        return False
    raise argparse.ArgumentTypeError(f"invalid boolean {text!r} (true or false)")


def storage_url(args) -> str | None:
    """--storage, with the --etcd-* TLS files added to an etcd URL (they apply to nothing else)."""
    import urllib.parse

    tls = {"cacert": args.etcd_cafile, "cert": args.etcd_certfile, "key": args.etcd_keyfile}
    tls = {k: v for k, v in tls.items() if v}
    if not tls:
        return args.storage
    if not (args.storage or "").lower().startswith(("etcd://", "etcds://")):
        raise ValueError("--etcd-cafile, --etcd-certfile and --etcd-keyfile need --storage=etcd://HOST:PORT")
    joiner = "&" if "?" in args.storage else "?"
    return args.storage + joiner + urllib.parse.urlencode(tls)


def election_times(args):
    from kubelite.server.controllers.leader import ElectionTimes

    return ElectionTimes(args.leader_elect_lease_duration, args.leader_elect_renew_deadline,
                         args.leader_elect_retry_period).check()


def _log_controllers() -> None:
    """A served cluster shows its controllers' warnings on its stderr (an embedded command does not)."""
    import logging

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    logger = logging.getLogger("kubelite.controllers")
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING)


class LocalServer:
    """Everything a served data directory holds: the cluster, its TLS files and token."""

    def __init__(self, data_dir: pathlib.Path, storage: str | None = None, nodes: int = 1,
                 controllers: bool | list = True, pki=None, service_cidr: str | None = None):
        """`pki`: the certificates being made (server/pki.py's Pending), if start began them."""
        from kubelite.server.auth import ensure_token
        from kubelite.server.cluster import Cluster
        from kubelite.server.tls import ensure_tls

        from kubelite.server.private import private_dir

        private_dir(data_dir)
        if pki is None:
            from kubelite.server import pki as pki_files

            pki = pki_files.start(data_dir / "pki", admin=False)
        import importlib

        # What Cluster imports first, imported while a first start's child makes the certificates.
        for module in ("app", "core", "resources", "storage"):
            importlib.import_module(f"kubelite.server.{module}")

        pki.wait()
        self.tls = ensure_tls(data_dir / "pki")  # what the wait left: current, nothing to make
        self.token = ensure_token(data_dir)
        self.cluster = Cluster(storage or str(data_dir / "state.db"), token=self.token, nodes=nodes,
                               ca=self.tls.ca_pem(), controllers=controllers, service_cidr=service_cidr)
        self.store = self.cluster.store
        self.api = self.cluster.api
        from kubelite.server.auth.signing import KEY_FILE, Signer

        # Service-account tokens stay valid across restarts: the signing key lives with the CA
        # (read at the first token signed or verified).
        self.api.sa_signer = Signer.at(data_dir / "pki" / KEY_FILE)
        from kubelite.server.controllers.csr_signing import SigningCA

        # kube-controller-manager's --cluster-signing-cert/key-file: approved CSRs are signed by the CA.
        self.api.csr_signing_ca = SigningCA.from_pki(data_dir / "pki")
        self.app = self.cluster.app

    def close(self) -> None:
        self.cluster.close()


def build_server(data_dir: pathlib.Path, storage: str | None = None, nodes: int = 1,
                 controllers: bool | list = True, pki=None, service_cidr: str | None = None) -> LocalServer:
    return LocalServer(data_dir, storage, nodes, controllers, pki, service_cidr)
