import Foundation
import GRDB
@testable import GroupiePostgres
import GroupieServer
@testable import GroupieSQLite
@testable import GroupieStorage
import GroupieTestSupport
import HTTPTypes
import Logging
import Testing

extension CommandLineTests {
    @Test("`serve --help` lists every setting with its variable, file key and default")
    func serveHelp() async throws {
        let result = try await Self.run(["serve", "--help"])
        #expect(result.status == 0)
        // Unwrapped, since where a line breaks depends on the lengths of the texts.
        let help = result.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for option in [ServerOptions.configFile] + ServerOptions.all {
            #expect(help.contains(option.flag), "\(option.flag)")
            #expect(help.contains(option.variable), "\(option.variable)")
            #expect(help.contains("Default \(option.defaultText)."), "\(option.key)")
        }
        for option in ServerOptions.all {
            #expect(help.contains("\"\(option.key)\" in the file"), "\(option.key)")
        }
    }

    /// `groupie serve` on the sample venues on a free port, started, on `server`'s folders (a new
    /// one's unless given); its standard error goes to `errors`, and `settings` come after the others.
    static func start(
        logLevel: String, errors: ChildProcess.Destination = .discard, settings: [String] = [], on given: TestServer? = nil
    ) throws -> (process: ChildProcess, port: Int) {
        let server = try given ?? TestServer.samples()
        let port = TestPorts.unused()
        let process = try ChildProcess(Self.executable, [
            "serve", "--port", "\(port)", "--host", "127.0.0.1", "--data", server.root + "/data",
            "--missions", server.missions, "--assets", server.assets, "--log-level", logLevel,
        ] + settings, errors: errors)
        return (process, port)
    }

    /// `groupie serve` on the sample venues on a free port, healthy; its standard error goes to `errors`.
    static func serve(logLevel: String, errors: ChildProcess.Destination = .discard, on server: TestServer? = nil) async throws -> (process: ChildProcess, port: Int) {
        let (process, port) = try start(logLevel: logLevel, errors: errors, on: server)
        var healthy = false
        // A bound on a hang: a debug build beside the whole suite may take long to start.
        try? await eventually(.seconds(120), "serve healthy", every: .milliseconds(100)) {
            if let status = await LocalHTTP.status(port: port, "/healthz") { healthy = status == 200 }
            return healthy || !process.isRunning
        }
        #expect(healthy)
        return (process, port)
    }

    static func post(port: Int, _ path: String, _ json: String, token: String? = nil) async throws -> [String: Any] {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        let data = try await LocalHTTP.request(port: port, .post, path, headers: headers, body: Data(json.utf8)).body
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    @Test("`serve` logs how it stores, and a request's line with the request id and the line's own metadata")
    func logLines() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-log-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let (process, port) = try await Self.serve(logLevel: "info", errors: .file(log.path))
        defer { if process.isRunning { process.terminate() } }
        let token = try #require(try await Self.post(port: port, "/api/v1/players", #"{"name": "Ada"}"#)["token"] as? String)
        let group = try #require(try await Self.post(port: port, "/api/v1/groups", #"{"venueId": "art-museum"}"#, token: token)["group"] as? [String: Any])
        let id = try #require(group["id"] as? String)
        process.terminate()
        process.waitUntilExit()
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        // SQLite's allocations take no process-wide lock: read back from SQLite at start.
        #expect(lines.contains { $0.contains("storing in SQLite at ") && $0.contains("(synchronous FULL, checkpoints beside the writer, memory statistics off)") }, "\(lines)")
        let created = try #require(lines.first { $0.contains("group created") }, "\(lines)")
        #expect(created.contains(" info "))
        #expect(created.contains("group=\(id)") && created.contains("venue=art-museum"), "the line's own metadata")
        #expect(created.contains("hb.request.id="), "the request's metadata, set on its logger")
        #expect(lines.allSatisfy { !$0.contains(token) }, "no token in the log")
    }

    @Test("`serve` lowers --max-connections to what the open-file limit allows and says so, after raising its soft limit to the hard one")
    func connectionsWithinFileLimit() async throws {
        let server = try TestServer.samples()
        for (limits, said) in [
            ("300:300", "serving at most 172 connections, not 4096: the process may open 300 files; raise it with ulimit -n"), ("300:8192", nil),
        ] {
            let log = server.root + "/serve-\(limits).log"
            let port = TestPorts.unused()
            let process = try ChildProcess("/usr/bin/prlimit", [
                "--nofile=\(limits)", Self.executable, "serve", "--port", "\(port)", "--host", "127.0.0.1", "--data", server.root + "/data",
                "--missions", server.missions, "--assets", server.assets, "--log-level", "info", "--max-connections", "4096",
            ], errors: .file(log))
            defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }
            try await eventually(.seconds(120), "serve listening with the open-file limit \(limits)", every: .milliseconds(100)) {
                guard process.isRunning else { return true }
                return (try? String(contentsOfFile: log, encoding: .utf8))?.contains("listening on ") == true
            }
            let text = try String(contentsOfFile: log, encoding: .utf8)
            #expect(process.isRunning, "\(text)")
            if let said {
                #expect(text.contains(said), "\(text)")
            } else {
                #expect(!text.contains("serving at most"), "the soft limit raised to the hard one leaves room: \(text)")
            }
        }
    }

    @Test("`serve` waits for a PostgreSQL that does not answer yet, says so once, and serves once it answers")
    func serveWaitsForPostgres() async throws {
        let cluster = try await TestPostgres.Cluster()
        defer { cluster.remove() }
        let url = try await cluster.freshDatabase()
        try await cluster.stop()
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-log-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        // Generous: beside the whole suite on two cores, this test may wait its turn for long.
        let (process, port) = try Self.start(
            logLevel: "info", errors: .file(log.path), settings: ["--database", url, "--database-wait", "300"]
        )
        defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        try await eventually(.seconds(120), "serve saying it waits for PostgreSQL") {
            !process.isRunning || (try? String(contentsOf: log, encoding: .utf8))?.contains("waiting for PostgreSQL at ") == true
        }
        #expect(process.isRunning, "still waiting for PostgreSQL")
        try await cluster.restart()
        var ready = false
        try? await eventually(.seconds(240), "serve ready on PostgreSQL", every: .milliseconds(100)) {
            if let status = await LocalHTTP.status(port: port, "/readyz") { ready = status == 200 }
            return ready || !process.isRunning
        }
        let text = try String(contentsOf: log, encoding: .utf8)
        #expect(ready, "serve \(process.isRunning ? "runs" : "ended with \(process.terminationStatus)"): \(text)")
        #expect(text.components(separatedBy: "waiting for PostgreSQL at ").count == 2, "said once: \(text)")
        #expect(text.contains("storing in PostgreSQL at "))
    }

    @Test("`serve` stops gracefully on SIGTERM and SIGINT, open event streams included", arguments: [SIGTERM, SIGINT])
    func gracefulShutdown(signal: Int32) async throws {
        let (process, port) = try await Self.serve(logLevel: "warning")
        defer { if process.isRunning { process.terminate() } }
        // A phone listening to its group's events must not hold the shutdown up.
        func post(_ path: String, _ json: String, token: String? = nil) async throws -> [String: Any] {
            try await Self.post(port: port, path, json, token: token)
        }
        let token = try #require(try await post("/api/v1/players", #"{"name": "Ada"}"#)["token"] as? String)
        let group = try #require(try await post("/api/v1/groups", #"{"venueId": "art-museum"}"#, token: token)["group"] as? [String: Any])
        let stream = try EventStreamReader(port: port, path: "/api/v1/groups/\(try #require(group["id"] as? String))/events", headers: ["Authorization": "Bearer \(token)"])
        #expect(await stream.read(for: 120) { $0.contains("retry:") }.contains("retry:"))

        // The server ends the open stream as it stops, rather than waiting for the phone to go
        // (or for its next heartbeat): the stream's response ends with its last chunk, which a
        // process that merely died would not send.
        process.signal(signal)
        let text = await stream.read(for: 120) { $0.hasSuffix("0\r\n\r\n") }
        #expect(text.hasSuffix("0\r\n\r\n"), "the stream ended as the server stopped: \(text.suffix(60))")
        try await eventually(.seconds(120), "the server's exit") { !process.isRunning }
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }
}
