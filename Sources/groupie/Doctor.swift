import ArgumentParser
import Foundation
import GroupiePostgres
import GroupieServer
import GroupieSQLite
import GroupieStorage
import Logging

/// `groupie doctor`: checks this machine before the day, with the settings `serve` would use,
/// and prints what is wrong in a sentence each. Exits 1 when something would fail visitors.
struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the machine before the day: settings, data folder, disk, fonts, missions, certificate, database, clock, public URL.",
        usage: "groupie doctor [--expected-photos <n>] [--config <path>] [--<setting> <value> ...]",
        discussion: "Takes the settings of 'groupie serve' (see 'groupie serve --help'). Prints one line for each check (ok, warning or FAIL) and exits 1 when a check fails."
    )

    @Option(name: .customLong("expected-photos"), help: "Photos the day may bring, for the disk space they need (default 1000).")
    var expectedPhotos = 1000
    @Argument(parsing: .allUnrecognized, help: .hidden)
    var settings: [String] = []

    func run() async throws {
        guard expectedPhotos >= 0 else { throw ValidationError("--expected-photos is a count of photos, 0 or more.") }
        var configuration: ServerConfiguration
        do throws(SettingError) {
            configuration = try await ServerOptions.load(arguments: settings, environment: ProcessInfo.processInfo.environment)
        } catch {
            print(GroupieServer.DoctorFinding.failure("The settings cannot be read: \(error.description)"))
            throw ExitCode(1)
        }
        if configuration.publicBaseURL == nil, configuration.host == "0.0.0.0", let address = LANAddress.first() {
            configuration.publicBaseURL = "http://\(address):\(configuration.port)"
        }
        let doctor = GroupieServer.Doctor(configuration: configuration, expectedPhotos: expectedPhotos, certificate: configuration.tlsCertificate)
        var findings = doctor.checkMachine()
        findings += await Self.checkDatabase(configuration)
        findings += await doctor.checkPublicURL()
        for finding in findings { print(finding) }
        let failures = findings.filter { $0.severity == .failure }.count, warnings = findings.filter { $0.severity == .warning }.count
        FileHandle.standardError.write(Data("\(findings.count) checks: \(failures) failed, \(warnings) warning(s)\n".utf8))
        if failures > 0 { throw ExitCode(1) }
    }

    /// Reachable, at a schema this Groupie knows, and durable: commits that survive a power cut.
    static func checkDatabase(_ configuration: ServerConfiguration) async -> [DoctorFinding] {
        guard let url = configuration.databaseURL else { return checkSQLite(configuration.dataFolder.database) }
        let shown = (try? PostgresURL(url).redacted) ?? "postgres://"
        let health: PostgresHealth
        do {
            health = try await PostgresStore.health(url: url, logger: StoreOptions.logger)
        } catch {
            return [.failure("The PostgreSQL database \(shown) cannot be reached: \(PostgresStore.reason(error)).")]
        }
        var findings: [DoctorFinding] = []
        if health.fsync != "on" || health.synchronousCommit == "off" {
            findings.append(.failure("PostgreSQL at \(shown) has fsync \(health.fsync) and synchronous_commit \(health.synchronousCommit): photos answered 201 could be lost in a crash; turn both on."))
        }
        if let newest = health.migrations.max(), newest > health.currentMigration {
            findings.append(.failure(
                "The PostgreSQL database \(shown) was migrated by a newer Groupie (migration \(newest)), which this one would refuse: install that Groupie again, or restore the backup made before it."
            ))
        }
        if findings.isEmpty {
            let schema = health.migrations.isEmpty ? "empty (serve migrates it at start)" : "at migration \(health.migrations.max() ?? 0)"
            findings.append(.ok("PostgreSQL \(health.serverVersion) at \(shown) answers, is \(schema), with fsync on and synchronous_commit \(health.synchronousCommit)."))
        }
        return findings
    }

    static func checkSQLite(_ path: String) -> [DoctorFinding] {
        guard FileManager.default.fileExists(atPath: path) else {
            // The folder, or the nearest one above it that exists (serve makes the rest).
            var folder = (path as NSString).deletingLastPathComponent
            while !FileManager.default.fileExists(atPath: folder), folder.count > 1 { folder = (folder as NSString).deletingLastPathComponent }
            guard access(folder, W_OK) == 0 else {
                return [.failure("No database yet at \(path), and serve cannot make one: \(folder) is not writable by this user (uid \(geteuid())).")]
            }
            return [.ok("No database yet at \(path): serve creates it (WAL, synchronous FULL).")]
        }
        if let reason = SQLiteStore.unwritable(path) {
            return [.failure("The database is read-only to serve: \(reason); give the service's user write access to it.")]
        }
        let health: SQLiteHealth
        do {
            health = try SQLiteStore.health(ofFileAt: path)
        } catch DatabaseFileError.notSQLite {
            return [.failure("The database " + SQLiteStore.notADatabase(path) + ".")]
        } catch DatabaseFileError.unreadable(_, let reason) {
            return [.failure("The database \(path) cannot be read (\(reason)).")]
        } catch {
            return [.failure("The database \(path) cannot be read: \(error)")]
        }
        if health.quickCheck != "ok" { return [.failure("The database \(path) fails SQLite's check (\(health.quickCheck)): restore it from a backup.")] }
        if health.isNewer {
            return [.failure(
                "The database \(path) was written by a newer Groupie than this one, which would refuse it: install that Groupie again, or restore the backup made before it."
            )]
        }
        var findings: [DoctorFinding] = []
        if health.needsMigration { findings.append(.ok("The database \(path) is of an earlier Groupie; serve migrates it at start (back it up first).")) }
        findings.append(.ok("The database \(path) passes SQLite's check; journal \(health.journalMode), and serve writes it with synchronous FULL, read back at start."))
        return findings
    }
}
