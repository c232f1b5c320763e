"""Key material of the test API server, made with the ``cryptography`` package: the
service-account signing key, and a client CA that signs a certificate for any user and
groups on demand (so a test can act as a user with restricted RBAC). Imported only when a
server starts (:mod:`podtemplate.testing.kube` reports a missing ``cryptography``)."""

from __future__ import annotations

import datetime
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

__all__ = ["client_certificate", "write_client_ca", "write_signing_key"]

_DAY = datetime.timedelta(days=1)


def _write_key(path: Path) -> ec.EllipticCurvePrivateKey:
    key = ec.generate_private_key(ec.SECP256R1())
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                       serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    path.chmod(0o600)
    return key


def write_signing_key(path: Path, public: Path) -> None:
    """The service accounts' signing key and its public key (which verifies tokens)."""
    key = _write_key(path)
    public.write_bytes(key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))


def _name(common_name: str, organizations: tuple[str, ...] = ()) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name),
                      *(x509.NameAttribute(NameOID.ORGANIZATION_NAME, group)
                        for group in organizations)])


def _certificate(subject: x509.Name, issuer: x509.Name, key: ec.EllipticCurvePrivateKey,
                 signing_key: ec.EllipticCurvePrivateKey, *, ca: bool) -> bytes:
    now = datetime.datetime.now(datetime.UTC)
    builder = (x509.CertificateBuilder()
               .subject_name(subject).issuer_name(issuer).public_key(key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(now - _DAY).not_valid_after(now + 30 * _DAY)
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if ca:
        builder = builder.add_extension(
            x509.KeyUsage(digital_signature=True, content_commitment=False,
                          key_encipherment=False, data_encipherment=False, key_agreement=False,
                          key_cert_sign=True, crl_sign=True, encipher_only=False,
                          decipher_only=False), critical=True)
    else:
        builder = builder.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]),
                                        critical=False)
    return builder.sign(signing_key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM)


def write_client_ca(folder: Path) -> None:
    """``client-ca.crt`` and ``client-ca.key`` in ``folder``."""
    key = _write_key(folder / "client-ca.key")
    name = _name("podtemplate-test-client-ca")
    (folder / "client-ca.crt").write_bytes(_certificate(name, name, key, key, ca=True))


def client_certificate(folder: Path, user: str, groups: tuple[str, ...],
                       out: Path) -> tuple[Path, Path]:
    """A client certificate for ``user`` in ``groups`` (CN and O, as kube-apiserver reads
    them), signed by the CA in ``folder``; returns the certificate and key files."""
    ca_key = serialization.load_pem_private_key((folder / "client-ca.key").read_bytes(),
                                                password=None)
    assert isinstance(ca_key, ec.EllipticCurvePrivateKey)
    ca = x509.load_pem_x509_certificate((folder / "client-ca.crt").read_bytes())
    out.mkdir(parents=True, exist_ok=True)
    key_file, cert_file = out / f"{user}.key", out / f"{user}.crt"
    key = _write_key(key_file)
    cert_file.write_bytes(_certificate(_name(user, groups), ca.subject, key, ca_key, ca=False))
    return cert_file, key_file
