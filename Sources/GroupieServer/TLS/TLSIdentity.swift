import Foundation
import NIOSSL
import X509

/// A certificate that `serve` cannot offer, said in one sentence for the operator.
public struct TLSFileError: Error, CustomStringConvertible, Equatable {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// What `serve` offers over HTTPS: the certificate chain and its private key, read from PEM
/// files and checked as a browser would check them, so that a certificate browsers refuse
/// stops the server at start (or is not taken up on a reload) instead of failing every phone.
struct TLSIdentity: Sendable {
    /// The server's certificate first, then the authorities that issued it.
    let chain: [NIOSSLCertificate]
    let key: NIOSSLPrivateKey
    /// The host names and IP addresses the certificate is made out to, as written in it.
    let names: [String]
    let notValidAfter: Date

    /// Reads both files and checks the certificate at `now`: in its period of validity, made
    /// out to at least one name, and belonging to the key.
    /// `serving` when the server runs on an earlier certificate (a reload): the advice is to
    /// renew, not to start again.
    static func read(certificate certificatePath: String, key keyPath: String, now: Date, serving: Bool = false) throws(TLSFileError) -> TLSIdentity {
        let chain: [NIOSSLCertificate]
        let leaf: Certificate
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
            guard let first = chain.first else { throw TLSFileError("") }
            leaf = try Certificate(derEncoded: try first.toDERBytes())
        } catch {
            throw TLSFileError(Self.unreadable(certificatePath, what: "certificate", begins: "-----BEGIN CERTIFICATE-----"))
        }
        let key: NIOSSLPrivateKey
        let keyPublicKey: Certificate.PublicKey
        do {
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
            keyPublicKey = try Certificate.PrivateKey(pemEncoded: String(decoding: try Data(contentsOf: URL(fileURLWithPath: keyPath)), as: UTF8.self)).publicKey
        } catch {
            throw TLSFileError(Self.unreadable(keyPath, what: "private key", begins: "-----BEGIN PRIVATE KEY----- (without a passphrase)"))
        }
        guard keyPublicKey == leaf.publicKey else {
            throw TLSFileError("The private key in \(StartupCheck.absolute(keyPath)) does not belong to the certificate in \(StartupCheck.absolute(certificatePath)); give the key the certificate was made for.")
        }
        if now > leaf.notValidAfter {
            throw TLSFileError("The certificate in \(StartupCheck.absolute(certificatePath)) expired on \(Self.day(leaf.notValidAfter)); browsers refuse it. \(serving ? "Renew it: the server reads the renewed files as soon as they change." : "Renew it and start again.")")
        }
        if now < leaf.notValidBefore {
            throw TLSFileError("The certificate in \(StartupCheck.absolute(certificatePath)) is valid only from \(Self.day(leaf.notValidBefore)); check this machine's clock, or use one valid now.")
        }
        let names = Self.names(of: leaf)
        guard !names.isEmpty else {
            throw TLSFileError("The certificate in \(StartupCheck.absolute(certificatePath)) names no host (browsers read only its subjectAltName); make one with subjectAltName=DNS:<your host>.")
        }
        return TLSIdentity(chain: chain, key: key, names: names, notValidAfter: leaf.notValidAfter)
    }

    /// Throws unless the certificate is made out to `host`, as browsers match it: a name equal
    /// to it (case aside), a wildcard `*.example.org` for one label more, or the same IP address.
    func requireNamed(_ host: String, certificatePath: String) throws(TLSFileError) {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        guard names.contains(where: { Self.name($0, covers: host) }) else {
            throw TLSFileError(
                "The certificate in \(StartupCheck.absolute(certificatePath)) is made out to \(names.joined(separator: ", ")), not to \(host), the public URL's host; phones would refuse it. Set --public-url to one of those names, or use a certificate for \(host)."
            )
        }
    }

    /// Whether a certificate's `name` covers `host` (lowercased): the same name, or a wildcard
    /// `*.example.org` for exactly one label more.
    static func name(_ name: String, covers host: String) -> Bool {
        let name = name.lowercased()
        if name == host { return true }
        guard name.hasPrefix("*."), let dot = host.firstIndex(of: "."), dot != host.startIndex else { return false }
        return host[host.index(after: dot)...] == name.dropFirst(2)
    }

    /// What a handshake offers, for swift-nio-ssl.
    var chainSources: [NIOSSLCertificateSource] { chain.map { .certificate($0) } }

    static func names(of certificate: Certificate) -> [String] {
        guard let alternatives = try? certificate.extensions.subjectAlternativeNames else { return [] }
        return alternatives.compactMap { name in
            switch name {
            case .dnsName(let dns): return dns
            case .ipAddress(let octets): return Self.ipAddress(Array(octets.bytes))
            default: return nil
            }
        }
    }

    private static func ipAddress(_ bytes: [UInt8]) -> String? {
        switch bytes.count {
        case 4: return bytes.map(String.init).joined(separator: ".")
        case 16:
            var address = in6_addr()
            withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return nil }
            return String(cString: text)
        default: return nil
        }
    }

    private static func unreadable(_ path: String, what: String, begins: String) -> String {
        let absolute = StartupCheck.absolute(path)
        guard FileManager.default.isReadableFile(atPath: path) else {
            return "The \(what) file \(absolute) does not exist or cannot be read by this user."
        }
        return "The \(what) file \(absolute) holds no \(what) in PEM form (text that begins with \(begins))."
    }

    private static func day(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle().year().month().day())
    }
}

/// What the command line asks of the certificate before the server is built.
public enum TLSFiles {
    /// The first name the certificate at `path` is made out to, or nil when it cannot be read
    /// (the server's start then says why).
    public static func preferredHost(certificate path: String) -> String? {
        guard let first = try? NIOSSLCertificate.fromPEMFile(path).first, let leaf = try? Certificate(derEncoded: try first.toDERBytes()) else {
            return nil
        }
        return TLSIdentity.names(of: leaf).first { !$0.hasPrefix("*") }
    }
}
