import Foundation
import Synchronization

/// A real PostgreSQL for the tests: the cluster `make test` starts (its URL in
/// `GROUPIE_TEST_POSTGRES`), or else one this process starts with `scripts/postgres-cluster` in
/// a temporary folder and stops when it exits. Every test gets a database of its own.
public enum TestPostgres {
    private static let server = Mutex<Result<String, any Error>?>(nil)
    nonisolated(unsafe) private static var startedFolder: String?

    /// The URL of the cluster's `postgres` database.
    public static func serverURL() throws -> String {
        try server.withLock { server in
            if let server { return try server.get() }
            let result = Result { try start() }
            server = result
            return try result.get()
        }
    }

    /// A new, empty database on the cluster, and its URL.
    public static func freshDatabase() throws -> String {
        let url = try serverURL()
        let name = "groupie_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        try psql(url, "CREATE DATABASE \(name)")
        return replacingDatabase(of: url, with: String(name))
    }

    /// Runs SQL with `psql`, a client independent of the one Groupie uses; returns its output
    /// (unaligned, tuples only).
    @discardableResult
    public static func psql(_ url: String, _ sql: String) throws -> String {
        let (status, output, errors) = try run("/usr/bin/env", ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", url, "-c", sql])
        guard status == 0 else { throw Failure(description: "psql failed: \(errors)") }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    static func replacingDatabase(of url: String, with name: String) -> String {
        var components = URLComponents(string: url)!
        components.path = "/" + name
        return components.string!
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        // Files, not pipes: the server `pg_ctl` starts may keep a pipe open long after.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputURL = folder.appendingPathComponent("out"), errorsURL = folder.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorsURL.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorsURL)
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, try String(contentsOf: outputURL, encoding: .utf8), try String(contentsOf: errorsURL, encoding: .utf8))
    }
}
