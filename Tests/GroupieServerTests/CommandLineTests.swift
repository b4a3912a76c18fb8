import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The `groupie` executable as an operator runs it.
@Suite("Command line")
struct CommandLineTests {
    static let executable = TestServer.repository.appendingPathComponent(".build/debug/groupie").path

    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = TestServer.repository
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outputData, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
    }

    @Test("`missions validate` passes the sample venues")
    func validateSamples() throws {
        let result = try Self.run(["missions", "validate", "missions/"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output == "")
        #expect(result.errors.contains("0 error(s)"))
    }

    @Test("`missions validate` prints path:line:column for each problem and exits 1")
    func validateBroken() throws {
        let corpus = "Tests/GroupieContentTests/BrokenMissions"
        let result = try Self.run(["missions", "validate", "--assets", corpus + "/assets", corpus + "/after-unknown.yaml", "missions/art-museum.yaml"])
        #expect(result.status == 1)
        #expect(result.output.split(separator: "\n") == [
            "\(corpus)/after-unknown.yaml:17:12: error: mission 'sharks' comes after unknown mission 'fsh'; did you mean 'fish'?",
            "\(corpus)/after-unknown.yaml:17:12: error: mission 'sharks' comes after unknown mission 'rays'",
        ].map { Substring($0) } + result.output.split(separator: "\n").filter { $0.hasPrefix("missions/art-museum.yaml") })
    }

    @Test("`missions validate` on a path that does not exist exits 1")
    func validateMissing() throws {
        let result = try Self.run(["missions", "validate", "no/such/file.yaml"])
        #expect(result.status == 1)
        #expect(result.output.hasPrefix("no/such/file.yaml:1:1: error:"))
    }

    @Test("`serve` with a missing folder says so in one sentence and exits")
    func serveMissingFolder() throws {
        let result = try Self.run(["serve", "--missions", "/no/such/missions", "--port", "0"])
        #expect(result.status != 0)
        #expect(result.errors.contains("groupie: The missions folder /no/such/missions does not exist"))
    }

    @Test("`serve` reads its settings from GROUPIE_* variables and rejects bad ones")
    func serveEnvironment() throws {
        let result = try Self.run(["serve"], environment: ["GROUPIE_PORT": "eighty"])
        #expect(result.status != 0)
        #expect(result.errors.contains("The port must be a number from 0 to 65535, not 'eighty'."))
    }

    @Test("`serve` stops gracefully on SIGTERM and SIGINT, open event streams included", arguments: [SIGTERM, SIGINT])
    func gracefulShutdown(signal: Int32) async throws {
        let server = try TestServer.samples()
        let port = 20_000 + Int.random(in: 0..<20_000)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = [
            "serve", "--port", "\(port)", "--host", "127.0.0.1", "--data", server.root + "/data",
            "--missions", server.missions, "--assets", server.assets, "--log-level", "warning",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        var healthy = false
        for _ in 0..<100 where !healthy {
            try await Task.sleep(for: .milliseconds(100))
            if let (_, response) = try? await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/healthz")!) {
                healthy = (response as? HTTPURLResponse)?.statusCode == 200
            }
        }
        #expect(healthy)
        // A phone listening to its group's events must not hold the shutdown up.
        func post(_ path: String, _ json: String, token: String? = nil) async throws -> [String: Any] {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
            request.httpMethod = "POST"
            request.httpBody = Data(json.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
            let (data, _) = try await URLSession.shared.data(for: request)
            return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        }
        let token = try #require(try await post("/api/v1/players", #"{"name": "Ada"}"#)["token"] as? String)
        let group = try #require(try await post("/api/v1/groups", #"{"venueId": "art-museum"}"#, token: token)["group"] as? [String: Any])
        let stream = try EventStreamReader(port: port, path: "/api/v1/groups/\(try #require(group["id"] as? String))/events", headers: ["Authorization": "Bearer \(token)"])
        #expect(await stream.read(for: 5) { $0.contains("retry:") }.contains("retry:"))

        let signalled = ContinuousClock.now
        kill(process.processIdentifier, signal)
        for _ in 0..<100 where process.isRunning {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(ContinuousClock.now - signalled < .seconds(5), "stopped without waiting for the stream's next heartbeat")
        #expect(!process.isRunning)
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }
}
