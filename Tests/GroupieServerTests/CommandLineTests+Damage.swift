import Foundation
import GRDB
@testable import GroupieServer
import GroupieSQLite
import GroupieTestSupport
import Testing

/// A database file the server must not serve on: damaged, or one it could not write.
extension CommandLineTests {
    /// Points the `player` table of the Groupie database at `path` at the page `rootPage` (an
    /// SQL expression), as a damaged file would: a server with the file open reads the new schema
    /// at its next statement.
    static func movePlayerTable(in path: String, to rootPage: String) async throws {
        // A server may be writing the file meanwhile: wait for its write as it waits for ours.
        var configuration = Configuration()
        configuration.busyMode = .timeout(60)
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try await queue.writeWithoutTransaction { db in
            let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
            try db.execute(sql: "PRAGMA writable_schema = ON")
            try db.execute(sql: "UPDATE sqlite_master SET rootpage = \(rootPage) WHERE name = 'player'")
            try db.execute(sql: "PRAGMA schema_version = \(version + 1)")
            try db.execute(sql: "PRAGMA writable_schema = OFF")
        }
        try queue.close()
    }

    /// A Groupie database at `path` whose `player` table shares its first page with the groups'
    /// table: its schema reads, and SQLite's check finds the page used twice.
    static func damagedDatabase(at path: String) async throws {
        _ = try SQLiteStore.open(atPath: path)
        try await movePlayerTable(in: path, to: "(SELECT rootpage FROM sqlite_master WHERE name = 'play_group')")
    }

    @Test("`serve` refuses a database that fails SQLite's check, and one it could not write, each in one sentence, and changes neither")
    func damagedOrReadOnlyDatabase() async throws {
        let server = try TestServer.samples()
        let data = server.root + "/damaged", path = data + "/groupie.sqlite"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        try await Self.damagedDatabase(at: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let arguments = ["--port", "\(TestPorts.unused())", "--data", data, "--missions", server.missions, "--assets", server.assets]
        let damaged = try #require(try await Self.serveEnding(arguments, within: 120))
        #expect(damaged.status == 2)
        #expect(damaged.errors.contains("\(path) is damaged (SQLite's check found: "), "\(damaged.errors)")
        #expect(damaged.errors.contains("restore the data folder from a backup (groupie restore)"), "\(damaged.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "left as it was")
        let doctor = try await Self.run(["doctor", "--data", data, "--missions", server.missions, "--assets", server.assets])
        #expect(doctor.output.contains("fails SQLite's check"), "\(doctor.output)")

        // A sound database this user cannot write: root writes wherever the mode says it may
        // not, so the file is made immutable.
        let sound = server.root + "/read-only", soundPath = sound + "/groupie.sqlite"
        try FileManager.default.createDirectory(atPath: sound, withIntermediateDirectories: true)
        _ = try SQLiteStore.open(atPath: soundPath)
        for file in [soundPath + "-wal", soundPath + "-shm"] { try? FileManager.default.removeItem(atPath: file) }
        let locked = geteuid() == 0 ? try ChildProcess.run("/usr/bin/chattr", ["+i", soundPath]).status == 0 : chmod(soundPath, 0o400) == 0
        defer { if geteuid() == 0 { _ = try? ChildProcess.run("/usr/bin/chattr", ["-i", soundPath]) } }
        try #require(locked, "the test could not make \(soundPath) unwritable to this user")
        let readOnly = try #require(try await Self.serveEnding(
            ["--port", "\(TestPorts.unused())", "--data", sound, "--missions", server.missions, "--assets", server.assets], within: 120
        ))
        #expect(readOnly.status == 2)
        #expect(readOnly.errors.contains("The database \(soundPath) is read-only to the server: \(soundPath) cannot be opened for writing by this user"), "\(readOnly.errors)")
        let checked = try await Self.run(["doctor", "--data", sound, "--missions", server.missions, "--assets", server.assets])
        #expect(checked.output.contains("FAIL: The database is read-only to serve: \(soundPath) cannot be opened for writing"), "\(checked.output)")
    }
}
