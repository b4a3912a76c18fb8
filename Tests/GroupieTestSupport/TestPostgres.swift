import Foundation
import Synchronization

/// A real PostgreSQL for the tests: the cluster `make test` starts (its URL in
/// `GROUPIE_TEST_POSTGRES`), or else one this process starts with `scripts/postgres-cluster` in
/// a temporary folder and stops when it exits. Every test gets a database of its own.
public enum TestPostgres {
    private static let server = Mutex<Result<String, any Error>?>(nil)
    nonisolated(unsafe) private static var startedFolder: String?

    /// The URL of the cluster's `postgres` database.
    public static func serverURL() async throws -> String {
        try await offPool { try startedServerURL() }
    }

    private static func startedServerURL() throws -> String {
        try server.withLock { server in
            if let server { return try server.get() }
            let result = Result { try start() }
            server = result
            return try result.get()
        }
    }

    /// A new, empty database on the cluster, and its URL.
    public static func freshDatabase() async throws -> String {
        let url = try await serverURL()
        let name = "groupie_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        try await psql(url, "CREATE DATABASE \(name)")
        return keepingNoneReady(replacingDatabase(of: url, with: String(name)))
    }

    /// Runs SQL with `psql`, a client independent of the one Groupie uses; returns its output
    /// (unaligned, tuples only).
    @discardableResult
    public static func psql(_ url: String, _ sql: String) async throws -> String {
        let url = forLibpq(url)
        let (status, output, errors) = try await offPool { try run("/usr/bin/env", ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", url, "-c", sql]) }
        guard status == 0 else { throw Failure(description: "psql failed: \(errors)") }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs the SQL file at `path` with `psql`, stopping at its first error.
    public static func psql(_ url: String, file path: String) async throws {
        let url = forLibpq(url)
        let (status, _, errors) = try await offPool { try run("/usr/bin/env", ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", url, "-f", path]) }
        guard status == 0 else { throw Failure(description: "psql -f \(path) failed: \(errors)") }
    }

    /// Runs PostgreSQL's client tool `tool` (`pg_dump`, `pg_restore`) with `arguments`; returns
    /// its output, or throws with its errors.
    @discardableResult
    public static func tool(_ tool: String, _ arguments: [String]) async throws -> String {
        // A URL, alone or as an option's value (`--dbname=postgres://…`), as libpq takes it.
        let arguments = arguments.map { argument in
            guard let start = argument.range(of: "postgres://") else { return argument }
            return String(argument[..<start.lowerBound]) + forLibpq(String(argument[start.lowerBound...]))
        }
        let (status, output, errors) = try await offPool { try run("/usr/bin/env", [tool] + arguments) }
        guard status == 0 else { throw Failure(description: "\(tool) failed: \(errors)") }
        return output
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    static func replacingDatabase(of url: String, with name: String) -> String {
        var components = URLComponents(string: url)!
        components.path = "/" + name
        return components.string!
    }

    /// The URL with `pool_min=0`: its stores keep no idle connection open. The suites open
    /// hundreds of stores on the shared cluster, which would otherwise hold eight connections
    /// each and run out of its 200; a cluster of a test's own keeps the default.
    static func keepingNoneReady(_ url: String) -> String {
        var components = URLComponents(string: url)!
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "pool_min", value: "0")]
        return components.string!
    }

    /// The URL without the parameters only Groupie reads (its pool's), which libpq refuses.
    public static func forLibpq(_ url: String) -> String {
        guard var components = URLComponents(string: url), let items = components.queryItems else { return url }
        let kept = items.filter { $0.name != "pool" && $0.name != "pool_min" }
        components.queryItems = kept.isEmpty ? nil : kept
        return components.string ?? url
    }

    /// `scripts/postgres-cluster` in the repository.
    static var clusterScript: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/postgres-cluster").path
    }

    /// A cluster of one test's own, for a test that stops PostgreSQL and starts it again: the
    /// shared cluster keeps serving every other test meanwhile. Removed when released.
    public final class Cluster: Sendable {
        /// The folder `scripts/postgres-cluster` keeps it in.
        public let folder: String
        /// The URL of its `postgres` database; it stays the same across `stop` and `restart`.
        public let url: String

        /// With `tls`, the server takes TLS connections too, with a certificate for the name
        /// `localhost` (not for the address 127.0.0.1 of `url`) signed by `authority`.
        public init(tls: Bool = false) async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-pg-own-\(UUID().uuidString.prefix(8))").path
            self.folder = folder
            let arguments = ["start", folder] + (tls ? ["--tls"] : [])
            let (status, output, errors) = try await offPool { try TestPostgres.run(TestPostgres.clusterScript, arguments) }
            guard status == 0 else { throw Failure(description: "cannot start a PostgreSQL cluster: \(errors)") }
            url = output.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// The certificate of the authority that signed a TLS cluster's certificate (PEM).
        public var authority: String { folder + "/tls/authority.crt" }
        /// The certificate of an authority that signed nothing the cluster has (PEM).
        public var otherAuthority: String { folder + "/tls/other-authority.crt" }

        /// A new, empty database on this cluster, and its URL.
        public func freshDatabase(_ name: String = "groupie") async throws -> String {
            try await TestPostgres.psql(url, "CREATE DATABASE \(name)")
            return TestPostgres.replacingDatabase(of: url, with: name)
        }

        /// Stops the server (`pg_ctl stop -m fast`: its connections are ended), so that nothing
        /// answers on its port.
        public func stop() async throws {
            let folder = folder
            let (status, _, errors) = try await offPool { try TestPostgres.run(TestPostgres.clusterScript, ["stop", folder]) }
            guard status == 0 else { throw Failure(description: "cannot stop the PostgreSQL cluster: \(errors)") }
        }

        /// Starts the stopped server again on the same port and socket folder: `pg_ctl restart`
        /// reads the options of the last start from `postmaster.opts` (the script would pick a
        /// new port).
        public func restart() async throws {
            let folder = folder
            try await offPool { try Self.restart(folder) }
        }

        private static func restart(_ folder: String) throws {
            let options = try String(contentsOfFile: folder + "/data/postmaster.opts", encoding: .utf8)
            // `/usr/lib/postgresql/15/bin/postgres "-D" "…" "-p" "…" …`: pg_ctl is beside postgres.
            let server = String(options.prefix { $0 != " " && $0 != "\n" })
            let pgCtl = URL(fileURLWithPath: server).deletingLastPathComponent().appendingPathComponent("pg_ctl").path
            let command = [pgCtl, "-D", folder + "/data", "-l", folder + "/server.log", "-w", "-t", "60", "restart"]
            // As root, scripts/postgres-cluster runs the server as the `postgres` user.
            let (status, _, errors) = getuid() == 0
                ? try TestPostgres.run("/usr/sbin/runuser", ["-u", "postgres", "--"] + command)
                : try TestPostgres.run(pgCtl, Array(command.dropFirst()))
            guard status == 0 else { throw Failure(description: "cannot start the PostgreSQL cluster again: \(errors)") }
        }

        /// Stops the server for good and removes its folder, on a thread of its own: it is called
        /// from `defer`, which cannot wait, and `pg_ctl stop` takes up to a second that would
        /// hold one of the Swift pool's threads. The test process waits for every removal before
        /// it exits (`Removals`). Also done when the cluster is released.
        public func remove() {
            Removals.start(folder)
        }

        deinit {
            remove()
        }
    }

    /// The clusters being stopped and removed, each once; the process waits for them at exit, so
    /// that no test leaves a server running.
    enum Removals {
        private static let state = Mutex<(folders: Set<String>, registered: Bool)>(([], false))
        private static let running = DispatchGroup()

        static func start(_ folder: String) {
            let first = state.withLock { state -> Bool? in
                guard state.folders.insert(folder).inserted else { return nil }
                defer { state.registered = true }
                return !state.registered
            }
            guard let first else { return }
            if first { atexit { _ = TestPostgres.Removals.running.wait(timeout: .now() + 60) } }
            running.enter()
            Thread {
                _ = try? TestPostgres.run(TestPostgres.clusterScript, ["stop", folder])
                try? FileManager.default.removeItem(atPath: folder)
                running.leave()
            }.start()
        }
    }

    private static func start() throws -> String {
        if let given = ProcessInfo.processInfo.environment["GROUPIE_TEST_POSTGRES"], !given.isEmpty { return given }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/postgres-cluster").path
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-pg-\(UUID().uuidString.prefix(8))").path
        let (status, output, errors) = try run(script, ["start", folder])
        guard status == 0 else { throw Failure(description: "cannot start a PostgreSQL cluster for the tests: \(errors)") }
        startedFolder = folder
        atexit {
            guard let folder = TestPostgres.startedFolder else { return }
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("scripts/postgres-cluster").path
            _ = try? TestPostgres.run(script, ["stop", folder])
            try? FileManager.default.removeItem(atPath: folder)
        }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> (Int32, String, String) {
        // Files, not pipes, and no other descriptor inherited: the server `pg_ctl` starts runs on
        // long after the command, and must hold nothing of the test process open.
        let result = try ChildProcess.run(executable, arguments)
        return (result.status, result.output, result.errors)
    }
}
