import Foundation
@testable import GroupieServer
import GroupieTestSupport
import Testing

/// An operator's slips, each said in one sentence, with nothing made that was not asked for.
extension CommandLineTests {
    /// `serve` with `arguments`, given `seconds` to end by itself: nil when it was still
    /// running then (it is stopped), else its status and standard error.
    static func serveEnding(_ arguments: [String], within seconds: Double = 30) async throws -> (status: Int32, errors: String)? {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-serve-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let process = try ChildProcess(executable, ["serve", "--host", "127.0.0.1"] + arguments, errors: .file(log))
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
        guard !process.isRunning else {
            process.terminate()
            process.waitUntilExit()
            return nil
        }
        return (process.terminationStatus, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }

    @Test("A second `serve` on a SQLite data folder that a server serves is refused, and one on a port in use says so")
    func secondServerRefused() async throws {
        let server = try TestServer.samples()
        let data = server.root + "/data"
        let (owner, port) = try await Self.serve(logLevel: "error", on: server)
        defer { if owner.isRunning { owner.terminate() } }
        try #require(owner.isRunning)

        let second = try #require(
            try await Self.serveEnding(["--port", "\(TestPorts.unused())", "--data", data, "--missions", server.missions, "--assets", server.assets]),
            "the second server is refused and ends"
        )
        #expect(second.status == 2)
        #expect(second.errors.contains("Another Groupie server (instance "), "\(second.errors)")
        #expect(second.errors.contains("need PostgreSQL"), "\(second.errors)")
        #expect(!second.errors.contains("phones join at"), "\(second.errors)")

        let other = try TestServer.samples()
        let taken = try #require(
            try await Self.serveEnding(["--port", "\(port)", "--data", other.root + "/data", "--missions", other.missions, "--assets", other.assets]),
            "a server whose port is taken ends"
        )
        #expect(taken.status == 2)
        #expect(taken.errors.contains("cannot listen on 127.0.0.1 port \(port): another program uses it; stop that program or choose another --port"), "\(taken.errors)")
        #expect(!taken.errors.contains("phones join at"), "\(taken.errors)")

        // The HTTPS redirect's port taken: named as such, with its own option.
        let certificate = try DoctorCommandTests.certificate(name: "localhost", days: 30, in: other.root)
        let redirect = try #require(
            try await Self.serveEnding([
                "--port", "\(TestPorts.unused())", "--http-redirect-port", "\(port)", "--tls-certificate", certificate, "--tls-key", other.root + "/key.pem",
                "--data", other.root + "/data", "--missions", other.missions, "--assets", other.assets,
            ]),
            "a server whose redirect port is taken ends"
        )
        #expect(redirect.status == 2)
        #expect(
            redirect.errors.contains("cannot listen on 127.0.0.1 port \(port): another program uses it; stop that program or choose another --http-redirect-port"),
            "\(redirect.errors)"
        )
    }

    @Test("Staff commands on a data folder without a database refuse, except `add`, which says it made one")
    func staffOnMissingDatabase() async throws {
        let server = try TestServer.samples()
        let typo = server.root + "/dta"
        let listed = try await Self.run(["staff", "list", "--data", typo])
        #expect(listed.status != 0)
        #expect(listed.errors.contains("There is no Groupie database at \(typo)/groupie.sqlite"), "\(listed.errors)")
        #expect(!FileManager.default.fileExists(atPath: typo), "nothing was made")
        let removed = try await Self.run(["staff", "remove", "eva@museum.example", "--data", typo])
        #expect(removed.status != 0)
        #expect(!FileManager.default.fileExists(atPath: typo), "nothing was made")

        let added = try ChildProcess.run(
            command: Self.executable, ["staff", "add", "eva@museum.example", "--role", "admin", "--data", typo, "--missions", server.missions],
            input: Data("correct-horse-9\n".utf8)
        )
        #expect(added.status == 0, "\(added.errors)")
        #expect(added.errors.contains("there was no database at \(typo)/groupie.sqlite; a new one was made there"), "\(added.errors)")
        #expect(FileManager.default.fileExists(atPath: typo + "/groupie.sqlite"))
        let again = try await Self.run(["staff", "list", "--data", typo])
        #expect(again.status == 0)
        #expect(again.output.contains("eva@museum.example"))
        #expect(!again.errors.contains("a new one was made"))
    }

    @Test("A groupie.sqlite that is no database is named as such by `serve` and `migrate`, and left as it was")
    func notADatabase() async throws {
        let server = try TestServer.samples()
        let data = server.root + "/broken"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let junk = Data(String(repeating: "not a database at all; ", count: 40).utf8)
        try junk.write(to: URL(fileURLWithPath: data + "/groupie.sqlite"))

        let migrated = try await Self.run(["migrate", "--data", data])
        #expect(migrated.status != 0)
        #expect(migrated.errors.contains("\(data)/groupie.sqlite is not a SQLite database"), "\(migrated.errors)")
        let served = try #require(
            try await Self.serveEnding(["--port", "\(TestPorts.unused())", "--data", data, "--missions", server.missions, "--assets", server.assets])
        )
        #expect(served.status == 2)
        #expect(served.errors.contains("groupie.sqlite is not a SQLite database"), "\(served.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: data + "/groupie.sqlite")) == junk, "left as it was")
    }

    @Test("`import` into a database that holds other players says what it imported, then what the database now holds")
    func importSaysWhatItImported() async throws {
        let source = try TestServer()
        try source.write("aquarium.yaml", TestServer.aquarium())
        try await source.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)
        }
        let target = try TestServer()
        try await target.test { client in _ = try await client.newPlayer("Cy") }
        let export = source.root + "/aquarium.sqlite"
        #expect(try await Self.run(["export", "--data", source.configuration.dataDirectory, "--venue", "aquarium", "--to", export]).status == 0)
        let imported = try await Self.run(["import", "--from", export, "--data", target.configuration.dataDirectory])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(
            imported.output.split(separator: "\n").last.map(String.init)
                == "imported into \(target.configuration.dataDirectory)/groupie.sqlite: 2 players, 1 group, 0 photos; it now holds 3 players, 1 group, 0 photos"
        )
    }
}

extension CommandLineTests {
    @Test("Sizes in `doctor`'s lines are never 0 MiB")
    func doctorSizes() {
        #expect(Doctor.size(0) == "0 bytes")
        #expect(Doctor.size(700) == "700 bytes")
        #expect(Doctor.size(300 * 1024) == "300 KiB")
        #expect(Doctor.size(655 * 1_048_576) == "655 MiB")
        #expect(Doctor.size(3 * 1_073_741_824 / 2) == "1.5 GiB")
    }
}

extension CommandLineTests {
    @Test("A value a command refuses as it runs is followed by that command's usage, as one refused while parsing is")
    func refusedValueShowsCommandUsage() async throws {
        let port = try await Self.run(["serve", "--port", "abc"])
        #expect(port.status == 64)
        #expect(port.errors.hasPrefix("Error: --port: The port must be a number from 0 to 65535, not 'abc'.\nUsage: groupie serve "), "\(port.errors)")
        #expect(port.errors.hasSuffix("  See 'groupie serve --help' for more information.\n"), "\(port.errors)")

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-usage-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let missions = try await Self.run(["staff", "add", "a@museum.example", "--role", "viewer", "--venue", "aquarium", "--missions", folder + "/none", "--data", folder])
        #expect(missions.status == 64)
        #expect(missions.errors.contains("\nUsage: groupie staff add <email> "), "\(missions.errors)")
        #expect(missions.errors.hasSuffix("  See 'groupie staff add --help' for more information.\n"), "\(missions.errors)")
    }
}
