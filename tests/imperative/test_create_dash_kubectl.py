"""Words after `--` in `create TYPE NAME ... -- words` and `create token`, against kubectl offline.

kubectl counts the NAMEs before `--` (cobra's ArgsLenAtDash) and ignores the words after it, save
for deployment, job and cronjob, whose command they are; `--` alone, `-- NAME` (no NAME) and two
NAMEs before it are refused with the count of the words before it."""
from __future__ import annotations

import datetime

import pytest

from imperative_support import kubectl_many, kubelite, needs_kubectl

pytestmark = [pytest.mark.kubectl, needs_kubectl]

DRY = ["--dry-run=client"]


def _tls_files(tmp):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "dash.test")])
    start = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(start).not_valid_after(start + datetime.timedelta(days=3650))
            .sign(key, hashes.SHA256()))
    (tmp / "tls.crt").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (tmp / "tls.key").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                    serialization.NoEncryption()))
    return str(tmp / "tls.crt"), str(tmp / "tls.key")


def _generators(crt: str, key: str) -> list[tuple[list[str], list[str]]]:
    """(words before NAME, flags) of every generator of `kubectl create` that works offline."""
    return [
        (["configmap"], ["--from-literal=a=b"]),
        (["cm"], []),
        (["namespace"], []),
        (["secret", "generic"], ["--from-literal=a=b"]),
        (["secret", "tls"], [f"--cert={crt}", f"--key={key}"]),
        (["secret", "docker-registry"], ["--docker-server=r", "--docker-username=u", "--docker-password=p"]),
        (["serviceaccount"], []),
        (["sa"], []),
        (["quota"], ["--hard=pods=2"]),
        (["deployment"], ["--image=nginx"]),
        (["job"], ["--image=busybox"]),
        (["cronjob"], ["--image=busybox", "--schedule=*/5 * * * *"]),
        (["service", "clusterip"], ["--tcp=80"]),
        (["service", "nodeport"], ["--tcp=80:8080"]),
        (["service", "loadbalancer"], ["--tcp=443"]),
        (["service", "externalname"], ["--external-name=example.com"]),
        (["rolebinding"], ["--role=r", "--user=u"]),
        (["clusterrolebinding"], ["--clusterrole=r", "--group=g"]),
        (["poddisruptionbudget"], ["--selector=a=b", "--min-available=1"]),
        (["priorityclass"], ["--value=5"]),
        (["ingress"], ["--rule=a.com/p=svc:80"]),
    ]


def _cases(crt: str, key: str) -> list[list[str]]:
    cases = []
    for words, flags in _generators(crt, key):
        output = ["-o", "yaml"] if words[0] in ("deployment", "job", "cronjob") else ["-o", "name"]
        for shape in (["x", "--", "a"], ["x", "--", "a", "b", "--c", "-o", "json"], ["x", "--"],
                      ["--", "x"], ["x", "y", "--", "z"], ["--"]):
            cases.append(["create", *words, *flags, *DRY, *output, *shape])
        cases.append(["create", *words, *DRY, "x", "-o", "name", "--", *flags])  # flags after -- are words
    # pflag: a flag that takes a value takes the next word even when it starts with `-`
    cases += [["create", "configmap", "x", "--from-literal", "-x=y", *DRY, "-o", "yaml"],
              ["create", "configmap", "x", *DRY, "-o", "-x"], ["create", "configmap", "x", *DRY, "-n", "-A", "-o", "yaml"],
              ["create", "deployment", "x", "--image", "-i", *DRY, "-o", "yaml"],
              ["create", "deployment", "x", "--image=", *DRY, "-o", "name"],  # required means given, even empty
              ["create", "cronjob", "x", "--image=a", "--schedule=", *DRY, "-o", "name"],
              ["create", "configmap", "x", *DRY, "-o", "yaml", "--from-literal"]]
    cases += [["create", "token", "--", "sa"], ["create", "token", "a", "b", "--", "c"],
              ["create", "token", "--", "a", "b"], ["create", "token", "--"]]
    return cases


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    crt, key = _tls_files(tmp_path_factory.mktemp("tls"))
    cases = _cases(crt, key)
    return list(zip(cases, kubectl_many(cases)))


def test_words_after_dash_are_treated_as_kubectl_treats_them(recorded, isolated_home):
    mismatches = [(case, expected, got) for case, expected in recorded
                  if (got := kubelite(case)) != expected]
    assert len(recorded) > 140
    assert not mismatches, f"{len(mismatches)}/{len(recorded)} differ; first: {mismatches[:3]}"
