import Foundation
@testable import GroupieSQLite
import GroupieStorage
import GroupieTestSupport
import HTTPTypes
import Synchronization
import Testing

/// The promise "a photo the server said 201 to survives a crash the next instant", tested
/// by killing the real server with SIGKILL in the middle of a burst of uploads.
@Suite("Crashes")
struct CrashTests {
    final class Server: Sendable {
        let process: ChildProcess
        let port = TestPorts.unused()

        init(data: String, environment: [String: String] = [:]) throws {
            let repository = TestServer.repository
            process = try ChildProcess(CommandLineTests.executable, [
                "serve", "--host", "127.0.0.1", "--port", "\(port)", "--data", data,
                "--missions", repository.appendingPathComponent("missions").path,
                "--assets", repository.appendingPathComponent("assets").path, "--log-level", "error",
            ], environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        }

        func waitUntilHealthy() async throws {
            // A bound on a hang only: a debug build on a busy machine may take long to start.
            try await eventually(.seconds(120), "the server's start", every: .milliseconds(50)) {
                guard process.isRunning else { throw TestFailure("the server ended as it started, with status \(process.terminationStatus)") }
                return (try? await self.request("GET", "/healthz").0) == 200
            }
        }

        func request(_ method: String, _ path: String, body: Data? = nil, token: String? = nil, contentType: String = "application/json") async throws -> (Int, Data) {
            var headers: HTTPFields = [.contentType: contentType]
            if let token { headers[.authorization] = "Bearer \(token)" }
            // A bound on a hang: fifty 12-megapixel photos at once on a busy machine take minutes.
            let answer = try await LocalHTTP.request(port: port, HTTPRequest.Method(method)!, path, headers: headers, body: body, timeout: .seconds(600))
            return (answer.status, answer.body)
        }

        func json(_ method: String, _ path: String, _ object: [String: String], token: String? = nil) async throws -> [String: Any] {
            let (_, data) = try await request(method, path, body: try JSONSerialization.data(withJSONObject: object), token: token)
            return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        }

        func kill() {
            process.signal(SIGKILL)
            process.waitUntilExit()
        }

        func stop() {
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
        }
    }

    @Test("SIGKILL during a burst of uploads: every photo that got 201 is there after restart, with its three images")
    func killDuringUploads() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-crash-\(UUID().uuidString)").path
        let images = try (0..<4).map { try Data(contentsOf: URL(fileURLWithPath: TestImages.solid(width: 1600 + $0, height: 1200, rgb: ($0 * 60, 90, 140), ext: "jpg"))) }

        let first = try Server(data: data)
        try await first.waitUntilHealthy()
        let created = try await first.json("POST", "/api/v1/players", ["name": "Ada"])
        let token = try #require(created["token"] as? String)
        let group = try #require(try await first.json("POST", "/api/v1/groups", ["venueId": "science-centre"], token: token)["group"] as? [String: Any])
        let groupId = try #require(group["id"] as? String)

        let accepted = ConfirmedIds()
        await withTaskGroup(of: Void.self) { uploads in
            for index in 0..<24 {
                uploads.addTask {
                    if let (status, body) = try? await first.request("POST", "/api/v1/groups/\(groupId)/photos", body: images[index % images.count], token: token, contentType: "image/jpeg"),
                        status == 201,
                        let id = ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any]).flatMap({ ($0["photo"] as? [String: Any])?["id"] as? String })
                    {
                        accepted.add(id)
                    }
                }
            }
            uploads.addTask {
                // Kill once a few uploads are through and others are still in flight.
                while accepted.count < 3 { try? await Task.sleep(for: .milliseconds(5)) }
                first.kill()
            }
        }
        let confirmed = accepted.all
        #expect(confirmed.count >= 3)
        #expect(confirmed.count < 24, "the server died with uploads still in flight")

        let second = try Server(data: data)
        defer { second.stop() }
        try await second.waitUntilHealthy()
        let (_, listing) = try await second.request("GET", "/api/v1/groups/\(groupId)/photos?limit=100", token: token)
        let photos = ((try JSONSerialization.jsonObject(with: listing) as? [String: Any])?["photos"] as? [[String: Any]]) ?? []
        let listed = Set(photos.compactMap { $0["id"] as? String })
        #expect(Set(confirmed).isSubset(of: listed), "every photo answered 201 is listed")
        for photo in photos {
            for variant in ["thumb", "display", "original"] {
                let url = try #require((photo["urls"] as? [String: String])?[variant])
                #expect(try await second.request("GET", url).0 == 200, "\(variant) of \(photo["id"] ?? "")")
            }
        }
        #expect(PhotoRouteTests.temporaryFiles(data: data).isEmpty, "no temporary files remain")
        second.stop()
        #expect(try await SQLiteStore.open(atPath: data + "/groupie.sqlite").integrityCheck() == "ok")
    }
}

@Suite("Memory")
struct MemoryTests {
    /// Peak resident memory of a process, from the kernel's own count.
    static func peakRSSMiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }

    @Test("50 simultaneous uploads of 12-megapixel JPEGs keep the server under 1 GiB")
    func fiftyUploads() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-memory-\(UUID().uuidString)").path
        let image = try Data(contentsOf: URL(fileURLWithPath: TestImages.solid(width: 4000, height: 3000, rgb: (120, 160, 200), ext: "jpg")))
        let server = try CrashTests.Server(data: data)
        defer { server.stop() }
        try await server.waitUntilHealthy()
        let token = try #require(try await server.json("POST", "/api/v1/players", ["name": "Ada"])["token"] as? String)
        let group = try #require(try await server.json("POST", "/api/v1/groups", ["venueId": "science-centre"], token: token)["group"] as? [String: Any])
        let groupId = try #require(group["id"] as? String)
        let statuses = await withTaskGroup(of: Int.self) { uploads in
            for _ in 0..<50 {
                uploads.addTask {
                    (try? await server.request("POST", "/api/v1/groups/\(groupId)/photos", body: image, token: token, contentType: "image/jpeg").0) ?? 0
                }
            }
            return await uploads.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 201 }.count == 50, "\(statuses)")
        let peak = Self.peakRSSMiB(server.process.processIdentifier)
        #expect(peak > 0 && peak < 1024, "peak RSS \(peak) MiB")
    }
}

/// Ids confirmed with 201, collected from concurrent uploads.
final class ConfirmedIds: Sendable {
    private let ids = Mutex<[String]>([])
    func add(_ id: String) { ids.withLock { $0.append(id) } }
    var all: [String] { ids.withLock { $0 } }
    var count: Int { ids.withLock { $0.count } }
}
