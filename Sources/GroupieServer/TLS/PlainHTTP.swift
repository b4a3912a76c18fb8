import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Browsers treat plain HTTP as secure only on this machine's own names: elsewhere they give a
/// page no service worker (no offline play) and drop `Secure` cookies (no staff sign-in). This
/// says where that happens, so that it can be said to the operator and to staff.
struct PlainHTTP: Sendable {
    /// The server itself speaks HTTPS.
    let servesTLS: Bool

    /// Whether a browser that sent `request` stands in an insecure context: plain HTTP here, no
    /// proxy in front saying it took HTTPS (`X-Forwarded-Proto`, which only chooses a message, so
    /// it is believed without `--trust-proxy`), and a host that is not a loopback name.
    func isInsecure(_ request: Request) -> Bool {
        guard !servesTLS else { return false }
        if let proto = request.headers[.xForwardedProto], proto.split(separator: ",").first?.trimmingCharacters(in: .whitespaces).lowercased() == "https" {
            return false
        }
        guard let authority = request.head.authority else { return false }
        return !Self.isLoopback(Self.host(ofAuthority: authority))
    }

    /// Logged once at start when phones and other computers reach the server over plain HTTP.
    static func warnAtStart(_ configuration: ServerConfiguration, logger: Logger) {
        guard !configuration.servesTLS, !isLoopback(configuration.host), !configuration.resolvedPublicBaseURL.lowercased().hasPrefix("https://") else {
            return
        }
        logger.warning(
            """
            serving plain HTTP to other machines: visitors play without offline support, and staff can sign in to /staff only \
            on this machine, because browsers allow both only over HTTPS. Give --tls-certificate and --tls-key, or put a TLS \
            proxy such as Caddy in front (docs/operating.md, "HTTPS").
            """
        )
    }

    /// `localhost`, a name under `.localhost`, 127.0.0.0/8 and `::1`, as browsers count them.
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// `museum.lan` of `museum.lan:8080`, `::1` of `[::1]:8080`.
    static func host(ofAuthority authority: String) -> String {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<end])
        }
        return String(authority.split(separator: ":", maxSplits: 1).first ?? "")
    }
}

extension HTTPField.Name {
    static let xForwardedProto = Self("X-Forwarded-Proto")!
}
