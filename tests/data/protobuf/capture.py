"""Record what real kubectl sends as protobuf, beside the JSON it means by it.

For each case in cases.json, against a fresh `kubelite serve`:
  <name>.pb    the request body kubectl sent (read back from its -v=9 hex dump), and
  <name>.json  the same command's `--dry-run=client -o json` output.
Cases run in order so later ones find what earlier ones created (autoscale needs the deployment).

Usage: python tests/data/protobuf/capture.py   (from the repository root, venv active)
"""
from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "server"))

from test_serve_support import Served  # noqa: E402

KUBECTL = "/usr/bin/kubectl"
_HEX_LINE = re.compile(r"^\t[0-9a-f]{8}  ((?:[0-9a-f]{2} {1,2})+)")


def fixture_files(directory: pathlib.Path) -> dict[str, str]:
    """A throwaway self-signed certificate and key, and a file that is not UTF-8 (binaryData)."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "pb.example")])
    now = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=3650))
            .sign(key, hashes.SHA256()))
    paths = {"cert": directory / "tls.crt", "key": directory / "tls.key", "binfile": directory / "blob.bin"}
    paths["cert"].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths["key"].write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
    paths["binfile"].write_bytes(bytes(range(256)))
    return {k: str(v) for k, v in paths.items()}


def expand(args: list[str], files: dict[str, str]) -> list[str]:
    return [a.format(**files) for a in args]


def request_bodies(log: str) -> list[bytes]:
    """Every request body in a kubectl -v=9 log, from its hex dumps."""
    bodies = []
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if '"Request Body"' not in line:
            continue
        data = bytearray()
        for follow in lines[i + 1:]:
            match = _HEX_LINE.match(follow)
            if not match:
                break
            data.extend(bytes.fromhex(match.group(1).replace(" ", "")))
        bodies.append(bytes(data))
    return bodies


def main() -> None:
    cases = json.loads((HERE / "cases.json").read_text())
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = pathlib.Path(tmp)
        files = fixture_files(tmp_path)
        served = Served(tmp_path / "data", tmp_path / "kubeconfig").start()
        base = [KUBECTL, "--kubeconfig", str(served.kubeconfig), "--cache-dir", str(tmp_path / "cache")]
        try:
            for name, args in cases:
                args = expand(args, files)
                # Flags go before the arguments: some cases end with `-- command args`.
                oracle = subprocess.run(base + ["--dry-run=client", "-o", "json"] + args,
                                        capture_output=True, text=True, check=True).stdout
                run = subprocess.run(base + ["-v=9"] + args, capture_output=True, text=True)
                bodies = [b for b in request_bodies(run.stderr) if b.startswith(b"k8s\x00")]
                if run.returncode != 0 or len(bodies) != 1:
                    raise SystemExit(f"{name}: exit {run.returncode}, {len(bodies)} protobuf bodies\n"
                                     + run.stderr[-2000:])
                (HERE / f"{name}.pb").write_bytes(bodies[0])
                (HERE / f"{name}.json").write_text(oracle)
                print(f"{name}: {len(bodies[0])} bytes")
        finally:
            served.stop()


if __name__ == "__main__":
    main()
