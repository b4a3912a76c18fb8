import Foundation
import GroupieStorage
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GroupieServer

/// Reads a Server-Sent Events stream over a plain socket, as a browser's EventSource would.
final class EventStreamReader {
    private let socket: Int32
    private var buffer = ""

    /// A TCP socket connected to the server under test.
    static func connect(port: Int) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw TestFailure("cannot connect")
        }
        return socket
    }

    init(port: Int, path: String, headers: [String: String] = [:]) throws {
        socket = try Self.connect(port: port)
        var request = "GET \(path) HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        _ = request.withCString { send(socket, $0, strlen($0), 0) }
    }

    deinit { close(socket) }

    /// Reads until `condition` holds for what has arrived, or `seconds` pass; returns it all.
    /// Never blocks a thread: the server under test shares the process's threads.
    func read(for seconds: Double, until condition: (String) -> Bool) async -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var chunk = [UInt8](repeating: 0, count: 4096)
        repeat {
            let count = recv(socket, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            if count > 0 {
                buffer += String(decoding: chunk[0..<count], as: UTF8.self)
                continue
            }
            if count == 0 { break }
            try? await Task.sleep(for: .milliseconds(20))
        } while Date() < deadline && !condition(buffer)
        return buffer
    }

    /// The `(id, event)` pairs received so far.
    var events: [(id: Int, type: String)] {
        // Without carriage returns: "\r\n" (of the chunked encoding) is one Character in Swift.
        let text = String(String.UnicodeScalarView(buffer.unicodeScalars.filter { $0 != "\r" }))
        return text.components(separatedBy: "\n\n").compactMap { frame in
            let lines = frame.split(separator: "\n").map(String.init)
            guard let id = lines.first(where: { $0.hasPrefix("id: ") }).flatMap({ Int($0.dropFirst(4)) }),
                let type = lines.first(where: { $0.hasPrefix("event: ") })?.dropFirst(7)
            else { return nil }
            return (id, String(type))
        }
    }
}

@Suite("Live events")
struct EventTests {
    static func server() throws -> TestServer {
        var server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        server.configuration.eventHeartbeat = .milliseconds(300)
        return server
    }

    static func streamToken(_ client: some TestClientProtocol, group: String, player: TestPlayer) async throws -> String {
        let (_, body) = try await client.send(.post, "/api/v1/groups/\(group)/events/token", headers: player.auth)
        return try #require(body["token"] as? String)
    }

    @Test("A stream token names the group's latest event, so that a client can tell replayed events from news")
    func tokenNamesLatestEvent() async throws {
        let server = try Self.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let group = try await client.newGroup(by: ada)
            var (_, body) = try await client.send(.post, "/api/v1/groups/\(group.id)/events/token", headers: ada.auth)
            #expect(body["latestEventId"] as? String == "0")
            _ = try await client.join(group.code, as: bo)
            (_, body) = try await client.send(.post, "/api/v1/groups/\(group.id)/events/token", headers: ada.auth)
            let latest = try await server.database().events(groupId: group.id, after: 0, limit: 10).last?.seq
            #expect(latest == 1)
            #expect(body["latestEventId"] as? String == "1")
        }
    }

    @Test("A photo reaches the other member at once, with the task and mission it completes; reconnecting replays exactly what was missed")
    func deliveryAndReplay() async throws {
        let server = try Self.server()
        let image = try TestImages.solid(width: 400, height: 300, rgb: (3, 30, 90), ext: "jpg")
        try await server.test(.live) { client in
            let port = try #require(client.port)
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)
            let token = try await Self.streamToken(client, group: group.id, player: ada)
            let stream = try EventStreamReader(port: port, path: "/api/v1/groups/\(group.id)/events?token=\(token)")
            let start = await stream.read(for: 120) { $0.contains("member-joined") }
            #expect(start.contains("text/event-stream"))
            // A proxy in front (nginx) must not hold the stream's events back to fill a buffer.
            let head = start.components(separatedBy: "\r\n\r\n").first ?? ""
            #expect(head.lowercased().components(separatedBy: "\r\n").contains("x-accel-buffering: no"), "\(head)")
            #expect(stream.events.map(\.type) == ["member-joined"], "what happened before the stream opened is replayed")

            _ = try await PhotoRouteTests.upload(client, image, as: bo, group: group.id, query: "?mission=sharks&task=shark")
            _ = await stream.read(for: 120) { $0.contains("mission-completed") }
            // The mission's collage follows in the background: `collage-ready` may come in the same read.
            #expect(Array(stream.events.map(\.type).prefix(4)) == ["member-joined", "photo-added", "task-done", "mission-completed"])
            #expect(Array(stream.events.map(\.id).prefix(4)) == [1, 2, 3, 4])
            _ = await stream.read(for: 120) { $0.contains("collage-ready") }
            #expect(stream.events.map(\.type).last == "collage-ready")
            _ = await stream.read(for: 120) { $0.contains(": heartbeat") }
            #expect(await stream.read(for: 0) { _ in true }.contains(": heartbeat"))

            let resumed = try EventStreamReader(port: port, path: "/api/v1/groups/\(group.id)/events", headers: ["Authorization": "Bearer \(ada.token)", "Last-Event-ID": "2"])
            _ = await resumed.read(for: 120) { $0.contains("collage-ready") }
            #expect(resumed.events.map(\.id) == [3, 4, 5])

            _ = try await client.send(.patch, "/api/v1/me", json: #"{"name": "Bosse"}"#, headers: bo.auth)
            _ = await stream.read(for: 120) { $0.contains("member-renamed") }
            #expect(stream.events.last?.type == "member-renamed")
        }
    }

    @Test("An open stream counts in groupie_event_streams_open and stays out of the request metrics")
    func streamMetrics() async throws {
        let server = try Self.server()
        try await server.test(.live) { client in
            let port = try #require(client.port)
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            _ = try await Self.streamToken(client, group: group.id, player: ada)
            let stream = try EventStreamReader(port: port, path: "/api/v1/groups/\(group.id)/events", headers: ["Authorization": "Bearer \(ada.token)"])
            _ = await stream.read(for: 120) { $0.contains("retry:") }
            let lines = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }.split(separator: "\n")
            let open = lines.first { $0.hasPrefix("groupie_event_streams_open ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
            // Other tests of the process may have streams open too.
            #expect((open ?? 0) >= 1)
            // Leaving the group ends the stream: the metrics middleware would record it now.
            #expect(try await client.send(.delete, "/api/v1/groups/\(group.id)/members/\(ada.id)", headers: ada.auth).0.status == .noContent)
            #expect(await stream.read(for: 120) { $0.contains("0\r\n\r\n") }.contains("0\r\n\r\n"), "the stream ended")
            let after = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }.split(separator: "\n")
            #expect(after.contains { $0.hasPrefix("hb_requests") && $0.contains("/events/token\"") })
            #expect(!after.contains { $0.contains("http_route=\"") && $0.contains("/events\"") && $0.contains("\"200\"") }, "a stream is not a request duration")
            // A refused request for a stream is a request like any other.
            #expect(try await client.send(.get, "/api/v1/groups/\(group.id)/events").0.status == .unauthorized)
            let refused = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }.split(separator: "\n")
            #expect(refused.contains { $0.hasPrefix("hb_requests") && $0.contains("/events\"") && $0.contains("\"401\"") })
        }
    }

    @Test("Streams need a valid token of a member")
    func authentication() async throws {
        let server = try Self.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), stranger = try await client.newPlayer("Stranger")
            let group = try await client.newGroup(by: ada)
            let token = try await Self.streamToken(client, group: group.id, player: ada)
            let forged = token.dropLast(2) + "00"
            #expect(try await client.send(.get, "/api/v1/groups/\(group.id)/events?token=\(forged)").0.status == .unauthorized)
            #expect(try await client.send(.get, "/api/v1/groups/\(group.id)/events").0.status == .unauthorized)
            #expect(try await client.send(.post, "/api/v1/groups/\(group.id)/events/token", headers: stranger.auth).0.status == .notFound)
            server.clock.advance(by: 301)
            #expect(try await client.send(.get, "/api/v1/groups/\(group.id)/events?token=\(token)").0.status == .unauthorized, "tokens expire")
        }
    }

    @Test("A subscriber that does not read is cut off and told to resync; publishing never waits")
    func overflow() {
        let hub = EventHub()
        let slow = hub.subscribe(groupId: "g", playerId: "p")
        let events = (1...(EventHub.bufferSize + 10)).map { GroupEvent(groupId: "g", seq: $0, kind: .photoAdded, data: "{}") }
        hub.publish(events)
        #expect(slow.overflowed)
        let fresh = hub.subscribe(groupId: "g", playerId: "p")
        hub.publish([GroupEvent(groupId: "g", seq: 999, kind: .photoAdded, data: "{}")])
        #expect(!fresh.overflowed)
        hub.unsubscribe(slow)
        hub.unsubscribe(fresh)
        #expect(hub.subscriberCount == 0)
    }

    @Test("Progress events follow deletes: a task that loses its last photo is undone")
    func undone() async throws {
        let server = try Self.server()
        let image = try TestImages.solid(width: 400, height: 300, rgb: (90, 30, 3), ext: "jpg")
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let (_, body) = try await PhotoRouteTests.upload(client, image, as: ada, group: group.id, query: "?mission=sharks&task=shark")
            let photoId = try #require((body["photo"] as? [String: Any])?["id"] as? String)
            _ = try await client.send(.delete, "/api/v1/photos/\(photoId)", headers: ada.auth)
        }
        let stored = try await server.database().events(groupId: try await firstGroup(server), after: 0, limit: 100)
        #expect(stored.map(\.kind.rawValue) == ["photo-added", "task-done", "mission-completed", "photo-removed", "task-undone"])
    }

    @Test("Editing the venue's mission file tells its groups")
    func venueUpdated() async throws {
        let server = try Self.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            try server.write("aquarium.yaml", TestServer.aquarium(title: "Hajar i tunneln"))
            let database = try server.database()
            let told = try await ReloadTests.eventually {
                try await database.events(groupId: group.id, after: 0, limit: 10).contains { $0.kind == .venueUpdated }
            }
            #expect(told != nil)
        }
    }

    func firstGroup(_ server: TestServer) async throws -> String {
        let database = try server.database()
        return try #require(try await database.activeGroupIds(venueId: "aquarium").first)
    }
}
