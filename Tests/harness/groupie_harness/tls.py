"""A private certificate authority for the HTTPS tests, made with openssl in a folder: the
museum's own authority, and certificates it issues for the server (valid, expired, for another
name), each with its chain in one PEM file as `serve --tls-certificate` takes it."""
import ssl
import subprocess
from pathlib import Path

from .checks import require


class Authority:
    """A certificate authority in `folder` (`ca.crt`, `ca.key`), valid for two days."""

    def __init__(self, folder, name="Groupie test authority"):
        self.openssl = require("openssl")
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.certificate, self.key = self.folder / "ca.crt", self.folder / "ca.key"
        self.serial = 0
        self.run("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                 "-subj", f"/CN={name}", "-addext", "basicConstraints=critical,CA:TRUE",
                 "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-keyout", self.key, "-out", self.certificate)

    def run(self, *arguments):
        subprocess.run([self.openssl, *map(str, arguments)], check=True, capture_output=True)

    def issue(self, label, names, days=2, starts_in_days=0, alternative_names=True):
        """A server certificate for `names` (host names, or IP addresses), from now for `days`
        days (a negative number: one that expired that many days ago), or from `starts_in_days`
        days ahead (one not valid yet). Without `alternative_names` the names are only in its
        subject's CN, which browsers do not read. Returns the paths of the chain (the certificate,
        then the authority's) and of the key: (chain, key)."""
        self.serial += 1
        key, request, leaf, chain = (self.folder / f"{label}.{ext}" for ext in ("key", "csr", "crt", "chain.pem"))
        self.run("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", f"/CN={names[0]}",
                 "-keyout", key, "-out", request)
        alternatives = ",".join(("IP:" if name.replace(".", "").isdigit() or ":" in name else "DNS:") + name for name in names)
        extensions = self.folder / f"{label}.ext"
        extensions.write_text((f"subjectAltName={alternatives}\n" if alternative_names else "")
                              + "extendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n")
        if starts_in_days:
            self.sign_later(request, extensions, leaf, starts_in_days, days)
        else:
            self.run("x509", "-req", "-in", request, "-CA", self.certificate, "-CAkey", self.key, "-set_serial", self.serial,
                     "-days", days, "-extfile", extensions, "-out", leaf)
        chain.write_bytes(leaf.read_bytes() + self.certificate.read_bytes())
        return chain, key

    def sign_later(self, request, extensions, leaf, starts_in_days, days):
        """Signs `request` valid from `starts_in_days` days ahead, for `days` days: `openssl ca`,
        since `openssl x509` of OpenSSL 3.0 starts every certificate now."""
        import datetime
        start = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=starts_in_days)
        end = start + datetime.timedelta(days=days)
        database = self.folder / "ca.index"
        database.write_text("")
        config = self.folder / "ca.cnf"
        config.write_text(
            "[ca]\ndefault_ca = groupie\n[groupie]\n"
            f"database = {database}\nnew_certs_dir = {self.folder}\nserial = {self.folder / 'ca.serial'}\n"
            "default_md = sha256\npolicy = anything\nunique_subject = no\n[anything]\ncommonName = supplied\n")
        (self.folder / "ca.serial").write_text(f"{self.serial:04X}\n")
        self.run("ca", "-batch", "-config", config, "-cert", self.certificate, "-keyfile", self.key, "-in", request,
                 "-startdate", start.strftime("%Y%m%d%H%M%SZ"), "-enddate", end.strftime("%Y%m%d%H%M%SZ"),
                 "-extfile", extensions, "-notext", "-out", leaf)

    def with_passphrase(self, key, passphrase="museum"):
        """A copy of the private key `key` encrypted with a passphrase, as some authorities hand
        keys out. Returns its path."""
        encrypted = Path(str(key) + ".encrypted")
        self.run("pkey", "-in", key, "-aes256", "-passout", f"pass:{passphrase}", "-out", encrypted)
        return encrypted

    def context(self):
        """A client's TLS context that trusts this authority only."""
        return ssl.create_default_context(cafile=str(self.certificate))


def serial_of(der):
    """The serial number of a certificate in DER form (a peer's, from `getpeercert(True)`)."""
    text = subprocess.run(["openssl", "x509", "-inform", "DER", "-noout", "-serial"], input=der, check=True,
                          capture_output=True).stdout.decode()
    return int(text.strip().split("=", 1)[1], 16)
