import Foundation
@testable import GroupiePostgres
@testable import GroupieStorage
import PostgresNIO
import Testing

/// `postgres://` URLs read as libpq reads them, as far as Groupie takes them.
@Suite("PostgreSQL URLs")
struct PostgresURLTests {
    /// The server, user, password and database a URL names, and the pool's settings.
    struct Reading: Equatable {
        var host: String?
        var port: Int?
        var socket: String?
        var user: String
        var password: String?
        var database: String?
        var pool = 20
        /// Kept open while idle.
        var ready = 8
        var connectTimeout = Duration.seconds(5)
        var applicationName: String?
    }

    static func read(_ text: String) throws -> Reading {
        let configuration = try PostgresURL(text).configuration
        return Reading(
            host: configuration.host, port: configuration.port, socket: configuration.unixSocketPath,
            user: configuration.username, password: configuration.password, database: configuration.database,
            pool: configuration.options.maximumConnections, ready: configuration.options.minimumConnections, connectTimeout: configuration.options.connectTimeout,
            applicationName: configuration.options.additionalStartupParameters.first { $0.0 == "application_name" }?.1
        )
    }

    @Test("The URL's parts and libpq's parameters name the server, the user and the database")
    func parts() throws {
        // Looked up here as the test's own, apart from Groupie's lookup.
        let me = String(cString: try #require(getpwuid(geteuid())).pointee.pw_name)
        let cases: [(String, Reading)] = [
            ("postgres://groupie:secret@db.internal:5433/groupie",
             Reading(host: "db.internal", port: 5433, user: "groupie", password: "secret", database: "groupie")),
            ("postgresql://groupie@db.internal/groupie", Reading(host: "db.internal", port: 5432, user: "groupie", database: "groupie")),
            // An IPv6 address loses the brackets that set it apart in the URL.
            ("postgres://groupie@[::1]:5433/groupie", Reading(host: "::1", port: 5433, user: "groupie", database: "groupie")),
            ("postgres://groupie@[fe80::1%25eth0]:5433/groupie", Reading(host: "fe80::1%eth0", port: 5433, user: "groupie", database: "groupie")),
            // A socket folder may also stand, encoded, where the host does.
            ("postgres://groupie@%2Frun%2Fpostgresql/groupie", Reading(socket: "/run/postgresql/.s.PGSQL.5432", user: "groupie", database: "groupie")),
            // Decoded once: "%2541" is "%41", not "A".
            ("postgres://gr%40upie:p%2541ss%3A@db/my%20db", Reading(host: "db", port: 5432, user: "gr@upie", password: "p%41ss:", database: "my db")),
            // The parameters override the URL's own parts.
            ("postgres://a:b@db:1/c?user=groupie&password=secret&dbname=groupie&port=5433",
             Reading(host: "db", port: 5433, user: "groupie", password: "secret", database: "groupie")),
            // A host that starts with "/" is a Unix socket's folder, with the port in its name.
            ("postgres://groupie@/groupie?host=/run/postgresql", Reading(socket: "/run/postgresql/.s.PGSQL.5432", user: "groupie", database: "groupie")),
            ("postgres://groupie@:5433/groupie?host=/run/postgresql", Reading(socket: "/run/postgresql/.s.PGSQL.5433", user: "groupie", database: "groupie")),
            // No host: Debian's socket folder; no user: the one Groupie runs as (peer authentication).
            ("postgres:///groupie", Reading(socket: "/var/run/postgresql/.s.PGSQL.5432", user: me, database: "groupie")),
            ("postgres:///groupie?port=5433&host=", Reading(socket: "/var/run/postgresql/.s.PGSQL.5433", user: me, database: "groupie")),
            ("postgres://db.internal", Reading(host: "db.internal", port: 5432, user: me)),
            ("postgres://groupie@db/groupie?pool=4&connect_timeout=1&application_name=groupie-a",
             Reading(host: "db", port: 5432, user: "groupie", database: "groupie", pool: 4, ready: 3, connectTimeout: .seconds(2), applicationName: "groupie-a")),
            ("postgres://groupie@db/groupie?pool=50&pool_min=12", Reading(host: "db", port: 5432, user: "groupie", database: "groupie", pool: 50, ready: 12)),
            ("postgres://groupie@db/groupie?pool_min=0", Reading(host: "db", port: 5432, user: "groupie", database: "groupie", ready: 0)),
            ("postgres://groupie@db/groupie?pool=1", Reading(host: "db", port: 5432, user: "groupie", database: "groupie", pool: 1, ready: 0)),
            ("postgres://groupie@db/groupie?connect_timeout=30", Reading(host: "db", port: 5432, user: "groupie", database: "groupie", connectTimeout: .seconds(30))),
            // An empty parameter overrides the URL's part with the default, as in libpq.
            ("postgres://groupie@db:5433/groupie?host=&port=", Reading(socket: "/var/run/postgresql/.s.PGSQL.5432", user: "groupie", database: "groupie")),
            ("postgres://groupie:secret@db/groupie?password=&dbname=", Reading(host: "db", port: 5432, user: "groupie")),
            // libpq's parameters that ask for nothing Groupie leaves undone are taken.
            ("postgres://groupie@db/groupie?channel_binding=prefer&gssencmode=disable&keepalives=1&keepalives_idle=30&target_session_attrs=any",
             Reading(host: "db", port: 5432, user: "groupie", database: "groupie")),
        ]
        for (text, expected) in cases {
            #expect(try Self.read(text) == expected, "\(text)")
        }
    }

    @Test("A parameter Groupie does not act on, or a value it cannot use, is refused with the reason")
    func refusals() {
        let cases: [(String, String)] = [
            ("postgres://groupie@db/groupie?sslcert=/etc/groupie/client.crt", "Groupie does not read the parameter 'sslcert'; it reads 'host', 'port'"),
            ("postgres://groupie@db:99999/groupie", "the port must be from 1 to 65535, not 99999"),
            ("postgres://groupie@db/groupie?port=x", "the port must be a number, not 'x'"),
            ("postgres://groupie@db/groupie?pool=0", "pool must be a number of connections from 1 to 1000, not '0'"),
            ("postgres://groupie@db/groupie?pool=many", "not 'many'"),
            ("postgres://groupie@db/groupie?pool=4&pool_min=4", "pool_min must be a number of connections from 0 to pool - 1 (3), not '4'"),
            ("postgres://groupie@db/groupie?pool_min=-1", "pool_min must be a number of connections from 0 to pool - 1 (19), not '-1'"),
            ("postgres://groupie@db/groupie?connect_timeout=-1", "connect_timeout must be a number of seconds, not '-1'"),
            ("mysql://groupie@db/groupie", "it must look like postgres://"),
            ("postgres://groupie@db/groupie?channel_binding=require", "Groupie cannot honour channel_binding=require; leave it out or use disable or prefer"),
            ("postgres://groupie@db/groupie?gssencmode=require", "cannot honour gssencmode=require"),
            ("postgres://groupie@db/groupie?target_session_attrs=read-write", "cannot honour target_session_attrs=read-write; leave it out or use any"),
            ("postgres://groupie@db/groupie?host=db1,db2", "Groupie connects to one host, not several ('db1,db2')"),
            ("postgres://groupie@db1,db2/groupie", "Groupie connects to one host, not several ('db1,db2')"),
            ("postgres://groupie@db/groupie?port=5432,5433", "Groupie connects to one port, not several"),
        ]
        for (text, expected) in cases {
            #expect {
                try PostgresURL(text)
            } throws: { error in
                "\(error)".hasPrefix("The PostgreSQL URL cannot be used: ") && "\(error)".contains(expected)
            }
        }
    }

    @Test("A command's store keeps no connection ready, whatever pool_min says")
    func commandsKeepNoneReady() throws {
        var url = try PostgresURL("postgres://groupie@db/groupie?pool=10&pool_min=3")
        #expect(url.configuration.options.minimumConnections == 3)
        url.keepingNoneReady()
        #expect(url.configuration.options.minimumConnections == 0)
        #expect(url.configuration.options.maximumConnections == 10)
    }

    @Test("What logs and /readyz show of a URL holds no password, in its user part or in its parameters")
    func redacted() throws {
        #expect(try PostgresURL("postgres://groupie:secret@db/groupie").redacted == "postgres://groupie:***@db/groupie")
        #expect(try PostgresURL("postgres://groupie@db/groupie?password=secret&pool=4").redacted == "postgres://groupie@db/groupie?password=***&pool=4")
    }

    @Test("A Unix socket that cannot be reached is named in the reason")
    func socketReason() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-no-socket-\(UUID().uuidString.prefix(8))").path
        await #expect {
            _ = try await PostgresStore.open(url: "postgres://groupie@/groupie?host=\(folder)", logger: Backend.logger)
        } throws: { error in
            error as? StoreUnavailable == StoreUnavailable("\(folder)/.s.PGSQL.5432: No such file or directory")
        }
    }
}
