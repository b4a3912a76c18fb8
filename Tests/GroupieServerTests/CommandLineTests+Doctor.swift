import Foundation
import GRDB
import GroupieCore
@testable import GroupieServer
import GroupieSQLite
import GroupieTestSupport
import HTTPTypes
import Testing

/// `groupie doctor` on a machine made ready, then on one with what would fail visitors.
@Suite("groupie doctor")
struct DoctorCommandTests {
    /// A self-signed certificate for `name` valid for `days` days (PEM), made with openssl.
    static func certificate(name: String, days: Int, in folder: String) throws -> String {
        let path = folder + "/cert-\(days).pem"
        let arguments = [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", folder + "/key.pem", "-out", path,
            "-days", "\(days)", "-subj", "/CN=\(name)", "-addext", "subjectAltName=DNS:\(name)",
        ]
        guard try ChildProcess.run("/usr/bin/openssl", arguments).status == 0 else { throw TestFailure("openssl could not make a certificate") }
        return path
    }

    static func lines(_ output: String, _ severity: String) -> [String] {
        output.split(separator: "\n").map(String.init).filter { $0.hasPrefix(severity) }
    }

    @Test("A ready machine passes: every check ok or a warning, the public URL reaches the doctor's own answer on the port, exit 0")
    func ready() async throws {
        let folder = try ScratchFolder.make("groupie-doctor")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let port = TestPorts.unused()
        let certificate = try Self.certificate(name: "localhost", days: 90, in: folder)
        let result = try await CommandLineTests.run([
            "doctor", "--data", folder + "/data", "--host", "127.0.0.1", "--port", "\(port)", "--public-url", "http://localhost:\(port)",
            "--expected-photos", "10", "--tls-certificate", certificate,
        ])
        #expect(result.status == 0, "\(result.output)")
        #expect(Self.lines(result.output, "FAIL").isEmpty, "\(result.output)")
        for said in [
            "ok: The data folder \(folder)/data does not exist yet; serve creates it.",
            "ok: 2 venue(s) are valid: art-museum, science-centre.",
            "ok: Fonts draw every language of the venues",
            "ok: The certificate \(certificate) is valid until",
            "ok: No database yet at \(folder)/data/groupie.sqlite",
            "ok: The public URL http://localhost:\(port) reaches this server.",
        ] {
            #expect(result.output.contains(said), "\(said)\n\(result.output)")
        }
    }

    @Test("While the server runs, the doctor finds it behind the public URL by its instance's name, and its database sound")
    func running() async throws {
        let server = try PhotoRouteTests.server()
        let data = server.configuration.dataDirectory, missions = server.missions, assets = server.assets
        try await server.test(.live) { client in
            let port = try #require((client as? TestServer.LiveClient)?.port)
            _ = try await client.newPlayer("Ada")
            let result = try await CommandLineTests.run([
                "doctor", "--data", data, "--missions", missions, "--assets", assets, "--host", "127.0.0.1", "--port", "\(port)",
                "--public-url", "http://localhost:\(port)", "--expected-photos", "1",
            ])
            // A temporary folder in memory (tmpfs) would rightly fail the data folder's check.
            #expect(Self.lines(result.output, "FAIL").allSatisfy { $0.contains("file system in memory") }, "\(result.output)")
            #expect(result.output.contains("ok: The public URL http://localhost:\(port) reaches this server."), "\(result.output)")
            #expect(result.output.contains("ok: The database \(data)/groupie.sqlite passes SQLite's check; journal wal"), "\(result.output)")
        }
    }

    @Test("What would fail visitors is said in a sentence each, and the doctor exits 1")
    func failing() async throws {
        let folder = try ScratchFolder.make("groupie-doctor")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/missions", withIntermediateDirectories: true)
        try Data("id: aquarium\nname: Akvariet\n".utf8).write(to: URL(fileURLWithPath: folder + "/missions/aquarium.yaml"))
        try FileManager.default.createDirectory(atPath: folder + "/data", withIntermediateDirectories: true)
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: folder + "/data/groupie.sqlite"))
        let certificate = try Self.certificate(name: "groupie.test", days: 1, in: folder)
        let port = TestPorts.unused(), elsewhere = TestPorts.unused()
        let result = try await CommandLineTests.run([
            "doctor", "--data", folder + "/data", "--missions", folder + "/missions", "--host", "127.0.0.1", "--port", "\(port)",
            "--public-url", "http://127.0.0.1:\(elsewhere)", "--expected-photos", "1000000000", "--tls-certificate", certificate,
        ])
        #expect(result.status == 1, "\(result.output)")
        let failures = Self.lines(result.output, "FAIL: ")
        for said in [
            "1000000000 photos of about 9 MiB each need",
            "The mission file \(folder)/missions/aquarium.yaml has",
            "has no valid venue: visitors would find nothing to play.",
            "The certificate \(certificate) expires at",
            "is for groupie.test, not for 127.0.0.1 of the public URL",
            "The database \(folder)/data/groupie.sqlite is not a SQLite database",
            "The public URL http://127.0.0.1:\(elsewhere) does not reach this server",
        ] {
            #expect(failures.contains { $0.contains(said) }, "\(said)\n\(result.output)")
        }
        #expect(!failures.contains { $0.contains("..") }, "\(result.output)")
        #expect(result.errors.contains("failed"), "\(result.errors)")
        let refused = try await CommandLineTests.run(["doctor", "--port", "seven"])
        #expect(refused.status == 1 && refused.output.hasPrefix("FAIL: The settings cannot be read:"), "\(refused.output)")
    }

    @Test("A folder this user cannot write, a data folder others can read and a database of a newer Groupie are each said; a newer one fails")
    func folderAndDatabase() async throws {
        let folder = try ScratchFolder.make("groupie-doctor")
        let data = folder + "/data", blobs = folder + "/data/blobs"
        try FileManager.default.createDirectory(atPath: blobs, withIntermediateDirectories: true)
        chmod(data, 0o755)
        // Root writes wherever the mode says it may not; an immutable folder it cannot write.
        let locked = geteuid() == 0 ? try ChildProcess.run("/usr/bin/chattr", ["+i", blobs]).status == 0 : chmod(blobs, 0o500) == 0
        defer {
            if geteuid() == 0 { _ = try? ChildProcess.run("/usr/bin/chattr", ["-i", blobs]) } else { chmod(blobs, 0o700) }
            try? FileManager.default.removeItem(atPath: folder)
        }
        try #require(locked, "the test could not make \(blobs) unwritable to this user")
        try #require(access(blobs, W_OK) != 0)
        // A database of this Groupie, then one migration more, as a newer Groupie would leave it.
        _ = try SQLiteStore.open(atPath: data + "/groupie.sqlite")
        let queue = try DatabaseQueue(path: data + "/groupie.sqlite")
        try await queue.write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v999-from-a-newer-groupie')") }
        try queue.close()

        let port = TestPorts.unused()
        let result = try await CommandLineTests.run([
            "doctor", "--data", data, "--host", "127.0.0.1", "--port", "\(port)", "--public-url", "http://localhost:\(port)", "--expected-photos", "1",
        ])
        #expect(result.status == 1, "\(result.output)")
        let failures = Self.lines(result.output, "FAIL: "), warnings = Self.lines(result.output, "warning: ")
        #expect(failures.contains { $0.contains("\(blobs) is not writable by this user (uid \(geteuid())): uploads would fail") }, "\(result.output)")
        #expect(warnings.contains { $0.contains("The data folder \(data) can be read by other users (mode 755); serve makes it 0700 at start.") }, "\(result.output)")
        #expect(
            failures.contains { $0.contains("The database \(data)/groupie.sqlite was written by a newer Groupie than this one, which would refuse it: install that Groupie again") },
            "\(result.output)"
        )
        #expect(!result.output.contains("is writable by this user only"), "\(result.output)")
    }

    @Test("A clock set in the past fails, a time zone the machine does not know fails, and a right clock and zones are ok")
    func clock() throws {
        let venue = Venue(
            id: "harbour", name: .plain("Harbour"), languages: ["en"], description: nil, timeZone: "Atlantis/Poseidonia",
            theme: Theme(color: "#000000", logo: nil), rules: VenueRules(), missions: []
        )
        let past = Doctor(configuration: ServerConfiguration(), expectedPhotos: 1, certificate: nil, now: Date(timeIntervalSince1970: 978_307_200))
        let found = past.checkClock(venues: [venue])
        #expect(found.contains(.failure("The clock says 2001-01-01T00:00:00Z: joining times and retention would be wrong; set the clock.")), "\(found)")
        #expect(found.contains { $0.severity == .failure && $0.sentence.hasPrefix("The time zone 'Atlantis/Poseidonia' of harbour is unknown") }, "\(found)")
        var known = venue
        known.timeZone = "Europe/Oslo"
        let today = Doctor(configuration: ServerConfiguration(), expectedPhotos: 1, certificate: nil).checkClock(venues: [known])
        #expect(!today.contains { $0.severity == .failure }, "\(today)")
        #expect(today.contains(.ok("The venues' time zones (Europe/Oslo) are known here.")), "\(today)")
    }
}
