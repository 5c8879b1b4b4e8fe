"""kubelite.server.auth.dersubject reads a certificate's CommonNames and Organizations as the
`cryptography` package does, or says it cannot (and the server asks `cryptography`)."""
from __future__ import annotations

import datetime

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.name import _ASN1Type
from cryptography.x509.oid import NameOID

from kubelite.server.auth.certs import user_from_certificate
from kubelite.server.auth.dersubject import subject_names

KEY = ec.generate_private_key(ec.SECP256R1())
NOW = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)


def certificate(rdns: list[x509.RelativeDistinguishedName], version_one: bool = False) -> bytes:
    name = x509.Name(rdns)
    builder = (x509.CertificateBuilder().subject_name(name).issuer_name(x509.Name([]))
               .public_key(KEY.public_key()).serial_number(12345678901234567890)
               .not_valid_before(NOW).not_valid_after(NOW + datetime.timedelta(days=1)))
    if not version_one:
        builder = builder.add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
    return builder.sign(KEY, hashes.SHA256()).public_bytes(serialization.Encoding.DER)


def rdn(*attributes) -> x509.RelativeDistinguishedName:
    return x509.RelativeDistinguishedName(attributes)


def cn(value: str, kind=None) -> x509.NameAttribute:
    return x509.NameAttribute(NameOID.COMMON_NAME, value, kind) if kind else x509.NameAttribute(NameOID.COMMON_NAME, value)


def org(value: str, kind=None) -> x509.NameAttribute:
    return (x509.NameAttribute(NameOID.ORGANIZATION_NAME, value, kind) if kind
            else x509.NameAttribute(NameOID.ORGANIZATION_NAME, value))


def by_cryptography(der: bytes) -> tuple[list[str], list[str]]:
    subject = x509.load_der_x509_certificate(der).subject
    return ([str(a.value) for a in subject.get_attributes_for_oid(NameOID.COMMON_NAME)],
            [str(a.value) for a in subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)])


SUBJECTS = {
    "admin": [rdn(org("system:masters")), rdn(cn("kubernetes-admin"))],
    "groups in order": [rdn(org("b")), rdn(cn("jane")), rdn(org("a")), rdn(org("c"))],
    "no organization": [rdn(cn("system:node:node-a"))],
    "no common name": [rdn(org("dev"))],
    "empty subject": [],
    "two common names": [rdn(cn("first")), rdn(cn("second"))],
    "multi-valued rdn": [rdn(cn("jane"), org("dev"))],
    "other attributes": [rdn(x509.NameAttribute(NameOID.COUNTRY_NAME, "DE")), rdn(cn("jane")),
                         rdn(x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, "ops"))],
    "unicode": [rdn(cn("jürgen ✓ 😀")), rdn(org("Größe"))],
    "printable": [rdn(cn("Jane Doe", _ASN1Type.PrintableString))],
    "ia5": [rdn(cn("jane@example.com", _ASN1Type.IA5String))],
    "bmp": [rdn(cn("jürgen ✓", _ASN1Type.BMPString)), rdn(org("Ω", _ASN1Type.BMPString))],
    "universal": [rdn(cn("😀 x", _ASN1Type.UniversalString))],
    "long name": [rdn(cn("x" * 64)), *[rdn(org(f"group-{i}-" + "y" * 50)) for i in range(12)]],
}


@pytest.mark.parametrize("subject", SUBJECTS)
@pytest.mark.parametrize("version_one", [False, True])
def test_names_read_as_cryptography_reads_them(subject, version_one):
    der = certificate(SUBJECTS[subject], version_one)
    assert subject_names(der) == by_cryptography(der)


def test_a_string_type_it_does_not_read_is_left_to_cryptography():
    der = certificate([rdn(cn("jane", _ASN1Type.T61String)), rdn(org("dev"))])
    assert subject_names(der) is None
    user = user_from_certificate(der)
    assert (user.name, [g for g in user.groups if g != "system:authenticated"]) == ("jane", ["dev"])


@pytest.mark.parametrize("der", [
    b"", b"\x30", b"\x30\x80\x00\x00", b"not a certificate at all",
    certificate(SUBJECTS["admin"])[:-1], certificate(SUBJECTS["admin"]) + b"\x00",
])
def test_bytes_that_are_no_certificate_it_knows_are_left_to_cryptography(der):
    assert subject_names(der) is None
    assert user_from_certificate(der) is None


def test_the_user_is_the_first_common_name_with_its_organizations_as_groups():
    user = user_from_certificate(certificate(SUBJECTS["groups in order"]))
    assert user.name == "jane"
    assert list(user.groups) == ["b", "a", "c", "system:authenticated"]
    assert user_from_certificate(certificate(SUBJECTS["no common name"])) is None
