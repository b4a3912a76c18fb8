import Foundation
@testable import GroupiePostgres
@testable import GroupieStorage
import GroupieTestSupport
import PostgresNIO
import Testing

/// The URL's `sslmode` and `sslrootcert`, as libpq reads them, against a real server that takes
/// TLS with a certificate for `localhost` from an authority of its own (PostgreSQL's Debian
/// package serves a self-signed one), and against one that takes no TLS.
@Suite("PostgreSQL over TLS")
struct PostgresTLSTests {
    /// Whether the store's connections use TLS, as the server sees them.
    static func usesTLS(_ store: PostgresStore) async throws -> Bool {
        try await store.once { connection in
            let rows = try await connection.run("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", logger: Backend.logger)
            for try await (ssl) in rows.decode(Bool.self) { return ssl }
            return false
        }
    }

    /// How opening a store at `url` ends: "tls", "plain", or why it failed; and, for a failure,
    /// how long it took. Opened with a patience of a minute, as `serve` waits for a database
    /// that does not answer yet: a failure that waiting cannot mend must come well before.
    static func open(_ url: String) async throws -> (outcome: String, failedAfter: Duration?) {
        let started = ContinuousClock.now
        do {
            let store = try await PostgresStore.open(url: url, logger: Backend.logger, patience: .seconds(60))
            defer { store.close() }
            return (try await usesTLS(store) ? "tls" : "plain", nil)
        } catch let error as PostgresStoreError {
            return (error.description, ContinuousClock.now - started)
        } catch let error as StoreUnavailable {
            return (error.reason, ContinuousClock.now - started)
        }
    }

    @Test("Each sslmode connects as libpq's does: prefer and require without checking the certificate, verify-ca and verify-full against sslrootcert")
    func modes() async throws {
        let cluster = try await TestPostgres.Cluster(tls: true)
        defer { cluster.remove() }
        let url = try await cluster.freshDatabase()
        let authority = cluster.authority, other = cluster.otherAuthority
        // The same server by name: its certificate is made out to localhost, not to 127.0.0.1.
        let byName = url.replacingOccurrences(of: "@127.0.0.1:", with: "@localhost:")
        let failedCheck = "the server's TLS certificate failed its check"
        let cases: [(String, String)] = [
            (url, "tls"),
            (url + "?sslmode=prefer", "tls"),
            (url + "?sslmode=allow", "tls"),
            (url + "?sslmode=require", "tls"),
            (url + "?sslmode=disable", "plain"),
            // libpq reads no authority without a check to make with it.
            (url + "?sslmode=prefer&sslrootcert=\(other)", "tls"),
            (url + "?sslmode=verify-ca&sslrootcert=\(authority)", "tls"),
            (byName + "?sslmode=verify-ca&sslrootcert=\(authority)", "tls"),
            (byName + "?sslmode=verify-full&sslrootcert=\(authority)", "tls"),
            (url + "?sslmode=verify-full&sslrootcert=\(authority)", "not made out to this host"),
            // libpq checks the authority under `require` when it is given one.
            (url + "?sslmode=require&sslrootcert=\(authority)", "tls"),
            (url + "?sslmode=require&sslrootcert=\(other)", failedCheck),
            (url + "?sslmode=verify-ca&sslrootcert=\(other)", failedCheck),
            (byName + "?sslmode=verify-full&sslrootcert=\(other)", failedCheck),
            // The system's trust roots hold no authority of the cluster's; `system` checks the name.
            (byName + "?sslrootcert=system", failedCheck),
            (byName + "?sslmode=verify-full&sslrootcert=system", failedCheck),
        ]
        for (url, expected) in cases {
            let (outcome, failedAfter) = try await within(.seconds(150), url) { try await Self.open(url) }
            let connects = ["tls", "plain"].contains(expected)
            #expect(connects ? outcome == expected : outcome.contains(expected), "\(url): \(outcome)")
            // A refused certificate is an answer: it is not waited on as a server that is still
            // starting would be (a minute here). One try takes seconds even with the suite busy.
            if let failedAfter { #expect(failedAfter < .seconds(30), "\(url) failed after \(failedAfter)") }
        }
    }

    @Test("A server without TLS, under sslmode=require, is refused at once and says so")
    func serverWithoutTLS() async throws {
        // A cluster of its own: the shared one may be an operator's, with TLS on.
        let cluster = try await TestPostgres.Cluster()
        defer { cluster.remove() }
        let url = try await cluster.freshDatabase()
        let (outcome, failedAfter) = try await within(.seconds(150), "require without TLS") { try await Self.open(url + "?sslmode=require") }
        #expect(outcome.contains("the server does not accept TLS, which the URL's sslmode requires"), "\(outcome)")
        #expect(failedAfter.map { $0 < .seconds(30) } ?? false, "failed after \(String(describing: failedAfter))")
        #expect(try await Self.open(url).outcome == "plain")
    }

    @Test("A handshake the connection's end cut short is silence, to be waited for; a certificate refused is an answer")
    func handshakeEndings() {
        // A server shutting down ends the connections it is still starting without a word.
        #expect(PostgresStore.isSilence(NIOSSLError.handshakeFailed(.sslError([.eofDuringHandshake]))))
        #expect(PostgresStore.isSilence(NIOSSLError.handshakeFailed(.sslError([]))))
        #expect(PostgresStore.isSilence(NIOSSLError.uncleanShutdown))
        #expect(!PostgresStore.isSilence(NIOSSLExtraError.failedToValidateHostname))
        #expect(!PostgresStore.isSilence(NIOSSLError.unableToValidateCertificate))
        #expect(PostgresStore.reason(NIOSSLExtraError.failedToValidateHostname).contains("not made out to this host"))
    }

    @Test("A URL's sslmode or sslrootcert that cannot work is refused before any connection, with the reason")
    func badParameters() throws {
        let folder = try ScratchFolder.make("groupie-tls-url")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let empty = folder + "/empty.crt", notPEM = folder + "/der.crt"
        try Data().write(to: URL(fileURLWithPath: empty))
        try Data([0x30, 0x82, 0x01, 0x0A, 0x02, 0x82]).write(to: URL(fileURLWithPath: notPEM))
        let refusals: [(String, String)] = [
            ("?sslmode=verify", "sslmode must be disable, allow, prefer, require, verify-ca or verify-full, not 'verify'"),
            // Over a Unix socket no TLS is used, but a mistake is still one.
            ("?host=/run/postgresql&sslmode=verify", "not 'verify'"),
            ("?sslmode=verify-ca", "sslmode=verify-ca needs sslrootcert="),
            ("?sslmode=verify-full", "sslmode=verify-full needs sslrootcert="),
            ("?sslmode=verify-ca&sslrootcert=system", "sslrootcert=system trusts any public authority, so it needs sslmode=verify-full"),
            ("?sslmode=require&sslrootcert=system", "needs sslmode=verify-full, not 'require'"),
            ("?sslmode=prefer&sslrootcert=system", "needs sslmode=verify-full, not 'prefer'"),
            ("?sslmode=verify-full&sslrootcert=\(folder)/missing.crt", "sslrootcert \(folder)/missing.crt is not a file Groupie can read"),
            ("?sslmode=verify-full&sslrootcert=\(folder)", "sslrootcert \(folder) is not a file Groupie can read"),
            ("?sslmode=verify-full&sslrootcert=\(empty)", "sslrootcert \(empty) holds no certificate in PEM"),
            ("?sslmode=require&sslrootcert=\(notPEM)", "sslrootcert \(notPEM) holds no certificate in PEM"),
        ]
        for (query, expected) in refusals {
            #expect {
                try PostgresURL("postgres://groupie@db.internal/groupie" + query)
            } throws: { error in
                "\(error)".hasPrefix("The PostgreSQL URL cannot be used: ") && "\(error)".contains(expected)
            }
        }
        // libpq reads no authority without a check to make with it.
        _ = try PostgresURL("postgres://groupie@db.internal/groupie?sslmode=prefer&sslrootcert=\(folder)/missing.crt")
    }
}
