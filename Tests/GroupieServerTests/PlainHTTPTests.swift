import Foundation
import Hummingbird
import HTTPTypes
@testable import GroupieServer
import Testing

/// Where browsers treat plain HTTP as insecure, and the HTTPS settings that go together.
/// `Tests/EndToEnd/https_test.py` serves HTTPS for real; these are the rules it stands on.
@Suite("Plain HTTP and the HTTPS settings")
struct PlainHTTPTests {
    static func request(authority: String?, headers: HTTPFields = [:]) -> Request {
        let head = HTTPRequest(method: .get, scheme: "http", authority: authority, path: "/staff/login", headerFields: headers)
        return Request(head: head, body: .init(buffer: .init()))
    }

    @Test("loopback names and addresses are the ones browsers call secure over plain HTTP", arguments: [
        ("localhost", true), ("LOCALHOST", true), ("museum.localhost", true), ("127.0.0.1", true), ("127.1.2.3", true),
        ("::1", true), ("[::1]", true), ("0.0.0.0", false), ("192.168.1.20", false), ("museum.lan", false),
        ("127.0.0.1.example", false), ("localhost.museum", false),
    ])
    func loopback(host: String, expected: Bool) {
        #expect(PlainHTTP.isLoopback(host) == expected)
    }

    @Test("the host of a request's authority, with or without a port", arguments: [
        ("museum.lan:8080", "museum.lan"), ("museum.lan", "museum.lan"), ("[::1]:8080", "::1"), ("127.0.0.1:80", "127.0.0.1"),
    ])
    func host(authority: String, expected: String) {
        #expect(PlainHTTP.host(ofAuthority: authority) == expected)
    }

    @Test("a request is insecure over plain HTTP to another name, unless a proxy says it took HTTPS")
    func insecure() {
        let plain = PlainHTTP(servesTLS: false)
        #expect(plain.isInsecure(Self.request(authority: "museum.lan:8080")))
        #expect(plain.isInsecure(Self.request(authority: "192.168.1.20:8080")))
        #expect(!plain.isInsecure(Self.request(authority: "localhost:8080")))
        #expect(!plain.isInsecure(Self.request(authority: "127.0.0.1:8080")))
        #expect(!plain.isInsecure(Self.request(authority: nil)))
        #expect(!plain.isInsecure(Self.request(authority: "museum.lan", headers: [.xForwardedProto: "https"])))
        #expect(!plain.isInsecure(Self.request(authority: "museum.lan", headers: [.xForwardedProto: "HTTPS, http"])))
        #expect(plain.isInsecure(Self.request(authority: "museum.lan", headers: [.xForwardedProto: "http"])))
        #expect(!PlainHTTP(servesTLS: true).isInsecure(Self.request(authority: "museum.lan:8443")))
    }

    @Test("the HTTPS settings that do not go together are named in one sentence")
    func settingsTogether() {
        func problem(_ change: (inout ServerConfiguration) -> Void) -> String? {
            var configuration = ServerConfiguration()
            change(&configuration)
            return TLSCertificates.Start.problem(of: configuration)
        }
        #expect(problem { _ in } == nil)
        #expect(problem { $0.tlsCertificate = "chain.pem" }?.hasPrefix("--tls-certificate and --tls-key go together") == true)
        #expect(problem { $0.tlsKey = "key.pem" }?.hasPrefix("--tls-certificate and --tls-key go together") == true)
        #expect(problem { $0.httpRedirectPort = 80 }?.hasPrefix("--http-redirect-port redirects to HTTPS, so it needs") == true)
        let both: (inout ServerConfiguration) -> Void = { $0.tlsCertificate = "chain.pem"; $0.tlsKey = "key.pem" }
        #expect(problem { both(&$0); $0.httpRedirectPort = 80 } == nil)
        #expect(problem { both(&$0); $0.httpRedirectPort = 8080 }?.hasPrefix("--http-redirect-port must differ from --port") == true)
        #expect(problem { both(&$0); $0.publicBaseURL = "http://museum.lan" }?.hasPrefix("With --tls-certificate the public URL must start with https://") == true)
        #expect(problem { both(&$0); $0.publicBaseURL = "https://museum.lan" } == nil)
    }

    @Test("a certificate's name covers a host as browsers match it", arguments: [
        ("museum.lan", "museum.lan", true), ("Museum.LAN", "museum.lan", true), ("*.museum.org", "groupie.museum.org", true),
        ("*.museum.org", "museum.org", false), ("*.museum.org", "a.groupie.museum.org", false), ("*.museum.org", ".museum.org", false),
        ("museum.lan", "other.lan", false), ("192.168.1.20", "192.168.1.20", true), ("::1", "::1", true),
    ])
    func certificateName(name: String, host: String, expected: Bool) {
        #expect(TLSIdentity.name(name, covers: host) == expected)
    }

    @Test("the default public URL follows the scheme, and leaves out the scheme's own port")
    func publicURL() {
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 8443
        #expect(configuration.resolvedPublicBaseURL == "http://127.0.0.1:8443")
        configuration.tlsCertificate = "chain.pem"
        configuration.tlsKey = "key.pem"
        #expect(configuration.resolvedPublicBaseURL == "https://127.0.0.1:8443")
        configuration.port = 443
        #expect(configuration.url(ofHost: "museum.lan") == "https://museum.lan")
        #expect(configuration.url(ofHost: "fe80::1") == "https://[fe80::1]")
    }
}
