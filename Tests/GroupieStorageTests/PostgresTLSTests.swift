import Foundation
@testable import GroupieStorage
import GroupieTestSupport
import PostgresNIO
import Testing

/// The URL's `sslmode` and `sslrootcert`, as libpq reads them, against a real server that takes
/// TLS with a certificate of an authority of its own (as PostgreSQL's Debian package serves a
/// self-signed one), and against the shared cluster, which takes none.
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

    /// How opening a store at `url` ends: "tls", "plain", or the reason it failed; and how long
    /// it took. Opened with `serve`'s patience: a failure that waiting cannot mend must come at once.
    static func open(_ url: String) async throws -> (String, Duration) {
        let started = ContinuousClock.now
        do {
            let store = try await PostgresStore.open(url: url, logger: Backend.logger, patience: .seconds(30))
            defer { store.close() }
            return (try await usesTLS(store) ? "tls" : "plain", ContinuousClock.now - started)
        } catch let error as PostgresStoreError {
            return (error.description, ContinuousClock.now - started)
        }
    }

    @Test("Each sslmode connects as libpq's does: prefer and require without checking the certificate, verify-ca and verify-full against sslrootcert")
    func modes() async throws {
        let cluster = try await TestPostgres.Cluster(tls: true)
        defer { cluster.remove() }
        let url = try await cluster.freshDatabase()
        let authority = cluster.authority
        // The same server by name: the certificate is made out to localhost, not to 127.0.0.1.
        let byName = url.replacingOccurrences(of: "@127.0.0.1:", with: "@localhost:")
        let cases: [(String, String)] = [
            (url, "tls"),
            (url + "?sslmode=prefer", "tls"),
            (url + "?sslmode=allow", "tls"),
            (url + "?sslmode=require", "tls"),
            (url + "?sslmode=disable", "plain"),
            (url + "?sslmode=verify-ca&sslrootcert=\(authority)", "tls"),
            (url + "?sslmode=verify-full&sslrootcert=\(authority)", "not made out to this host"),
            // libpq checks the authority under `require` when it is given one.
            (url + "?sslmode=require&sslrootcert=\(authority)", "tls"),
            (byName + "?sslmode=verify-ca&sslrootcert=\(authority)", "tls"),
            (byName + "?sslmode=verify-full&sslrootcert=\(authority)", "tls"),
            // The system's trust roots do not hold the cluster's authority.
            (url + "?sslmode=verify-ca", "not signed by an authority Groupie trusts"),
            (url + "?sslmode=verify-full&sslrootcert=system", "not signed by an authority Groupie trusts"),
        ]
        for (url, expected) in cases {
            let (outcome, took) = try await within(.seconds(60), url) { try await Self.open(url) }
            let connected = ["tls", "plain"].contains(expected)
            #expect(connected ? outcome == expected : outcome.contains(expected), "\(url): \(outcome)")
            // A refused certificate is an answer: `serve` does not wait for it to change.
            #expect(took < .seconds(15), "\(url) took \(took)")
        }
    }

    @Test("A server without TLS, under sslmode=require, is refused at once and says so")
    func serverWithoutTLS() async throws {
        let url = try await TestPostgres.freshDatabase()
        let (outcome, took) = try await within(.seconds(60), "require without TLS") { try await Self.open(url + "?sslmode=require") }
        #expect(outcome.contains("the server does not accept TLS, which the URL's sslmode requires"), "\(outcome)")
        #expect(took < .seconds(15), "took \(took)")
        #expect(try await Self.open(url).0 == "plain")
    }

    @Test("A URL's sslmode or sslrootcert that cannot work is refused before any connection")
    func badParameters() throws {
        #expect(throws: PostgresStoreError.self) { try PostgresURL("postgres://groupie@db/groupie?sslmode=verify") }
        #expect(throws: PostgresStoreError.self) { try PostgresURL("postgres://groupie@db/groupie?sslmode=verify-full&sslrootcert=/no/such/file.crt") }
        // libpq reads no certificate without a check to make with it.
        _ = try PostgresURL("postgres://groupie@db/groupie?sslmode=prefer&sslrootcert=/no/such/file.crt")
    }
}
