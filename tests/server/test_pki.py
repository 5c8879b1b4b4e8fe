"""What `kubelite serve` keeps in its data directory's pki/ (server/pki.py): made in a forked child
on a first start, each install its own, read back without `cryptography` at a restart (the expiry
from the certificate's DER form, the signing key when first used)."""
from __future__ import annotations

import base64
import datetime
import pathlib
import signal
import subprocess
import sys
import textwrap

import pytest

from test_serve_support import Served, free_port

from kubelite.server import pki, tls
from kubelite.server.auth import certs
from kubelite.server.auth.signing import Signer

ALL = {tls.CA_CERT, tls.CA_KEY, tls.SERVER_CERT, tls.SERVER_KEY, pki.SA_KEY, certs.ADMIN_CERT, certs.ADMIN_KEY}


def _cert_ending(when: datetime.datetime) -> bytes:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "t")])
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(datetime.datetime(2020, 1, 1))
            .not_valid_after(when).sign(key, hashes.SHA256()))
    return cert.public_bytes(serialization.Encoding.PEM)


@pytest.mark.parametrize("when", [datetime.datetime(2049, 12, 31, 23, 59, 58), datetime.datetime(2050, 1, 1, 0, 0, 1),
                                  datetime.datetime(2031, 6, 7, 8, 9, 10), datetime.datetime(9999, 12, 31, 23, 59, 59)])
def test_not_after_reads_utctime_and_generalizedtime(when):
    pem = _cert_ending(when)
    from cryptography import x509

    expected = x509.load_pem_x509_certificate(pem).not_valid_after_utc
    assert tls.not_after(pem) == expected == when.replace(tzinfo=datetime.timezone.utc)
    assert tls.not_after(b"garbage\n" + pem + pem) == expected  # the first certificate of a bundle


@pytest.mark.parametrize("pem", [b"", b"not a certificate", b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
                                 b"-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n"])
def test_not_after_of_what_is_no_certificate_is_none(pem):
    assert tls.not_after(pem) is None


def test_not_after_of_a_mangled_time_is_none():
    pem = _cert_ending(datetime.datetime(2031, 6, 7, 8, 9, 10))
    der = base64.b64decode(b"".join(pem.splitlines()[1:-1]))
    assert der.count(b"310607080910Z") == 1
    der = der.replace(b"310607080910Z", b"31060708091AZ")
    assert tls.not_after(b"-----BEGIN CERTIFICATE-----\n" + base64.encodebytes(der) + b"-----END CERTIFICATE-----\n") is None


def test_an_expiring_certificate_is_not_current(tmp_path):
    pki.ensure(tmp_path, admin=True)
    assert pki.current(tmp_path, admin=True)
    (tmp_path / certs.ADMIN_CERT).write_bytes(_cert_ending(datetime.datetime.now() + datetime.timedelta(hours=2)))
    assert not pki.current(tmp_path, admin=True)
    assert pki.current(tmp_path, admin=False)
    pki.ensure(tmp_path, admin=True)  # renewed
    assert pki.current(tmp_path, admin=True)


def _start_and_wait(directory: pathlib.Path, admin: bool) -> list[str]:
    """pki.start and wait in a process of its own (start forks: a threaded test process must not)."""
    code = textwrap.dedent(f"""
        import pathlib, sys
        from kubelite.server import pki
        directory = pathlib.Path({str(directory)!r})
        pending = pki.start(directory, {admin!r})
        print("child" if pending.child else "none")
        pending.wait()
        print(pki.current(directory, {admin!r}))
        print(sorted(sys.modules).count("cryptography"))
    """)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


def test_a_first_start_makes_the_files_in_a_child(tmp_path):
    pki_dir = tmp_path / "pki"
    # made in the child: the parent never imported cryptography
    assert _start_and_wait(pki_dir, admin=True) == ["child", "True", "0"]
    assert {p.name for p in pki_dir.iterdir()} == ALL
    assert {p.stat().st_mode & 0o777 for p in pki_dir.iterdir()} == {0o600}
    assert pki_dir.stat().st_mode & 0o777 == 0o700
    # the next start finds them current: nothing to make, nothing imported
    before = {name: (pki_dir / name).read_bytes() for name in ALL}
    assert _start_and_wait(pki_dir, admin=True) == ["none", "True", "0"]
    assert before == {name: (pki_dir / name).read_bytes() for name in ALL}


def test_each_install_makes_its_own(tmp_path):
    for name in ("a", "b"):
        _start_and_wait(tmp_path / name, admin=True)
    for name in ALL:
        assert (tmp_path / "a" / name).read_bytes() != (tmp_path / "b" / name).read_bytes()


def test_the_files_are_a_working_chain(tmp_path):
    import ssl

    from cryptography import x509

    pki.ensure(tmp_path, admin=True)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / tls.SERVER_CERT, tmp_path / tls.SERVER_KEY)
    context.load_cert_chain(tmp_path / certs.ADMIN_CERT, tmp_path / certs.ADMIN_KEY)
    ca = x509.load_pem_x509_certificate((tmp_path / tls.CA_CERT).read_bytes())
    for name in (tls.SERVER_CERT, certs.ADMIN_CERT):
        x509.load_pem_x509_certificate((tmp_path / name).read_bytes()).verify_directly_issued_by(ca)


def test_a_failed_child_is_done_again_in_process(tmp_path, monkeypatch):
    reaped = []
    monkeypatch.setattr(pki.os, "waitpid", lambda pid, options: (reaped.append(pid), (pid, 3 << 8))[1])
    pki.Pending(tmp_path, True, 12345).wait()  # a child that exited 3, having made nothing
    assert reaped == [12345]
    assert pki.current(tmp_path, admin=True)


def test_the_signing_key_is_read_when_first_used(tmp_path):
    path = tmp_path / pki.SA_KEY
    lazy = Signer.at(path)
    assert not path.exists()  # nothing read or made yet
    token = lazy.sign({"sub": "x"})
    assert path.exists()
    again = Signer.at(path)
    assert again.key_id == lazy.key_id == Signer.load_or_create(path).key_id
    assert again.verify(token) == {"sub": "x"}


@pytest.mark.parametrize("content", [b"", b"not a key", b"-----BEGIN PRIVATE KEY-----\ngarbage\n-----END PRIVATE KEY-----\n"])
def test_a_damaged_signing_key_is_named_not_replaced(tmp_path, content):
    path = tmp_path / pki.SA_KEY
    path.write_bytes(content)
    with pytest.raises(ValueError, match=f"{path}: not an EC private key"):
        Signer.load_or_create(path)
    assert path.read_bytes() == content  # left for its owner to look at


def test_a_restart_imports_no_cryptography(tmp_path):
    """A served data directory whose files are current starts without `cryptography` (until a
    token is signed or a client certificate read)."""
    Served(tmp_path / "data", tmp_path / "kubeconfig", ("--controllers=-*",)).start().stop()
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "kubelite", "serve", "--data-dir",
                             str(tmp_path / "data"), "--port", str(port), "--write-kubeconfig",
                             str(tmp_path / "kubeconfig"), "--controllers=-*"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if "API server listening on" in line:
                break
    finally:
        proc.send_signal(signal.SIGTERM)
        rest = proc.communicate(timeout=30)[1]
    assert any("listening on" in line for line in lines), "".join(lines) + rest
    imported = [line.rsplit("|", 1)[-1].strip() for line in lines if line.startswith("import time:")]
    assert imported, "no -X importtime output"
    assert [name for name in imported if name.split(".")[0] in ("cryptography", "yaml")] == []
