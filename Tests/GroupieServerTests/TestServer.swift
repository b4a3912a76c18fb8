import Foundation
import GroupieServer
@testable import GroupieSQLite
import GroupieStorage
import HTTPTypes
import Hummingbird
@testable import HummingbirdTesting
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A clock the tests move by hand.
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// A Groupie application on a temp folder of its own: real SQLite file, real mission files.
struct TestServer {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    let root: String
    var configuration: ServerConfiguration
    let clock = TestClock()

    var missions: String { configuration.missionsDirectory }
    var assets: String { configuration.assetsDirectory }

    /// A folder with `missions/`, `assets/` (one icon and the web client's page) and no data folder yet.
    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-test-\(UUID().uuidString)").path
        let fileManager = FileManager.default
        try fileManager.createDirectory(atPath: root + "/missions", withIntermediateDirectories: true)
        try fileManager.createDirectory(atPath: root + "/assets/icons", withIntermediateDirectories: true)
        try Data("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 64 64\"/>".utf8)
            .write(to: URL(fileURLWithPath: root + "/assets/icons/fish.svg"))
        try fileManager.createDirectory(atPath: root + "/assets/web", withIntermediateDirectories: true)
        try fileManager.copyItem(
            atPath: Self.repository.appendingPathComponent("assets/web/index.html").path, toPath: root + "/assets/web/index.html")
        configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.dataDirectory = root + "/data"
        configuration.missionsDirectory = root + "/missions"
        configuration.assetsDirectory = root + "/assets"
        configuration.publicBaseURL = "https://groupie.test"
        configuration.logLevel = .warning
        configuration.missionReloadInterval = .milliseconds(100)
        configuration.clock = { [clock] in clock.now }
    }

    /// The server's own database file, opened beside it, to check what a request changed.
    func database() throws -> SQLiteStore {
        try SQLiteStore.open(atPath: configuration.dataDirectory + "/groupie.sqlite")
    }

    /// Serves the repository's own sample venues and assets.
    static func samples() throws -> TestServer {
        var server = try TestServer()
        server.configuration.missionsDirectory = repository.appendingPathComponent("missions").path
        server.configuration.assetsDirectory = repository.appendingPathComponent("assets").path
        return server
    }

    func write(_ name: String, _ text: String) throws {
        let path = missions + "/" + name
        // Written beside and renamed, as editors do, so the reloader never sees half a file.
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    func remove(_ name: String) throws {
        try FileManager.default.removeItem(atPath: missions + "/" + name)
    }

    /// How a test reaches the application: through its router, or over a socket to a live server.
    enum Setup {
        case router, live
    }

    /// How long a live test waits for an answer. HummingbirdTesting's own live client gives up
    /// after 15 s, which a loaded machine running every suite at once can exceed.
    static let liveTimeout: Duration = .seconds(120)

    func test<Value>(_ setup: Setup = .router, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        var logger = Logger(label: "groupie-test")
        logger.logLevel = configuration.logLevel
        switch setup {
        case .router:
            return try await buildApplication(configuration, logger: logger).test(.router, body)
        case .live:
            let (ports, announce) = AsyncStream.makeStream(of: Int.self)
            let app = try await buildApplication(configuration, logger: logger) { channel in
                announce.yield(channel.localAddress?.port ?? 0)
            }
            let services = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    defer { announce.finish() }
                    try await services.run()
                }
                var waiting = ports.makeAsyncIterator()
                guard let port = await waiting.next(), port > 0 else {
                    await services.triggerGracefulShutdown()
                    try await group.waitForAll()
                    throw TestFailure("the live server did not start")
                }
                let client = TestClient(host: "localhost", port: port, configuration: .init(timeout: Self.liveTimeout))
                client.connect()
                let result: Result<Value, any Error>
                do {
                    result = .success(try await body(LiveClient(client: client, port: port)))
                } catch {
                    result = .failure(error)
                }
                try? await client.shutdown()
                await services.triggerGracefulShutdown()
                try await group.waitForAll()
                return try result.get()
            }
        }
    }

    /// A keep-alive connection to the live server, as HummingbirdTesting's live client, with a
    /// longer wait for answers (its answer type has no public initialiser, hence `@testable`).
    struct LiveClient: TestClientProtocol {
        let client: TestClient
        let port: Int?

        func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> TestResponse {
            var headers = headers
            headers[.connection] = "keep-alive"
            let response = try await client.execute(TestClient.Request(uri, method: method, authority: "localhost", headers: headers, body: body))
            return TestResponse(head: response.head, body: response.body ?? ByteBuffer(), trailerHeaders: response.trailerHeaders)
        }
    }

    /// A small venue in Swedish and English.
    static func aquarium(id: String = "aquarium", title: String = "Hajar", extraMission: String = "") -> String {
        """
        id: \(id)
        name:
          sv: Akvariet
          en: The Aquarium
        languages: [sv, en]
        timezone: Europe/Stockholm
        theme:
          color: "#0b6e4f"
        rules:
          max_group_size: 4
        missions:
          - id: sharks
            title:
              sv: \(title)
              en: Sharks
            icon: icons/fish.svg
            fact: Sharks have no bones.
            tasks:
              - id: shark
                prompt:
                  sv: Fota en haj
                  en: Photograph a shark
                hint: Titta i tunneln / Look in the tunnel
          - id: rays
            title: Rockor
            icon: icons/fish.svg
            after: sharks
            style: strip
            tasks:
              - id: ray
                prompt: { sv: Fota en rocka, en: Photograph a ray }
        \(extraMission)
        """
    }
}

extension TestClientProtocol {
    func json(_ uri: String, headers: HTTPFields = [:]) async throws -> (TestResponse, [String: Any]) {
        try await execute(uri: uri, method: .get, headers: headers) { response in
            let object = (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any] ?? [:]
            return (response, object)
        }
    }
}

/// A player as a test drives it: its token and id.
struct TestPlayer: Sendable {
    var id: String
    var token: String
    var auth: HTTPFields { [.authorization: "Bearer \(token)", .contentType: "application/json"] }
}

extension TestClientProtocol {
    func send(_ method: HTTPRequest.Method, _ uri: String, json: String? = nil, headers: HTTPFields = [:]) async throws -> (TestResponse, [String: Any]) {
        var headers = headers
        if json != nil, headers[.contentType] == nil { headers[.contentType] = "application/json" }
        return try await execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) }) { response in
            let object = (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any] ?? [:]
            return (response, object)
        }
    }

    func newPlayer(_ name: String) async throws -> TestPlayer {
        let (response, body) = try await send(.post, "/api/v1/players", json: #"{"name": "\#(name)"}"#)
        guard response.status == .created, let token = body["token"] as? String,
            let id = (body["player"] as? [String: Any])?["id"] as? String
        else { throw TestFailure("could not create player \(name): \(response.status)") }
        return TestPlayer(id: id, token: token)
    }

    /// Creates a group of the aquarium; returns its id and code.
    func newGroup(by player: TestPlayer, venue: String = "aquarium") async throws -> (id: String, code: String) {
        let (response, body) = try await send(.post, "/api/v1/groups", json: #"{"venueId": "\#(venue)"}"#, headers: player.auth)
        guard response.status == .created, let group = body["group"] as? [String: Any],
            let id = group["id"] as? String, let code = group["joinCode"] as? String
        else { throw TestFailure("could not create a group: \(response.status)") }
        return (id, code)
    }

    func join(_ code: String, as player: TestPlayer, headers: HTTPFields = [:]) async throws -> (TestResponse, [String: Any]) {
        var all = player.auth
        for field in headers { all[field.name] = field.value }
        return try await send(.post, "/api/v1/groups/join", json: #"{"code": "\#(code)"}"#, headers: all)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
