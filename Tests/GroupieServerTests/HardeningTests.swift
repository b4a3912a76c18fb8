import Foundation
import GroupieStorage
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GroupieServer

/// Regression tests for what an attack from outside found: each test failed before its fix.
@Suite("Hardening")
struct HardeningTests {
    static func server() throws -> TestServer {
        var server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        server.configuration.eventHeartbeat = .milliseconds(300)
        return server
    }

    // MARK: Names

    @Test("Names are bounded in bytes and marks, not only in characters; invisible names are refused", arguments: [
        "a" + String(repeating: "\u{0301}", count: 32_761),  // one character of 65 KB
        String(repeating: "👨‍👩‍👧‍👦", count: 32),  // 32 characters, 800 bytes
        "x\u{0300}\u{0301}\u{0302}\u{0303}\u{0304}\u{0305}",  // six marks on one letter
        "\u{200B}\u{200B}",  // zero-width spaces
        "\u{200D}\u{200D}",  // joiners alone
        "\u{2067}\u{2069}",  // bidi isolates alone
        "\u{3164}\u{3164}",  // Hangul fillers
        "\u{2800}",  // braille blank
        "Bo\u{202E}gnp.exe",  // a bidi override inside
    ])
    func names(_ name: String) async throws {
        let server = try Self.server()
        try await server.test { client in
            let body = String(decoding: try JSONSerialization.data(withJSONObject: ["name": name]), as: UTF8.self)
            let (response, problem) = try await client.send(.post, "/api/v1/players", json: body)
            #expect(response.status == .unprocessableContent)
            #expect(problem["code"] as? String == "invalid-name")
            let ada = try await client.newPlayer("Ada")
            let (group, _) = try await client.send(.post, "/api/v1/groups", json: String(decoding: try JSONSerialization.data(withJSONObject: ["venueId": "aquarium", "name": name]), as: UTF8.self), headers: ada.auth)
            #expect(group.status == .unprocessableContent || group.status == .contentTooLarge)
        }
        #expect(try await server.database().counts().players == 1)
    }

    @Test("Names with accents, scripts and emoji within the bounds are taken")
    func goodNames() async throws {
        let server = try Self.server()
        try await server.test { client in
            for name in ["Nguyễn Thị Ánh", "مريم", "李小龙", "Zoë 👩🏽‍🚀", String(repeating: "ä", count: 32)] {
                let body = String(decoding: try JSONSerialization.data(withJSONObject: ["name": name]), as: UTF8.self)
                #expect(try await client.send(.post, "/api/v1/players", json: body).0.status == .created, "\(name)")
            }
        }
    }

    // MARK: Event streams and membership

    @Test("A member's event streams end when they leave, are removed or erase themselves, and hear nothing after; reconnecting is refused", arguments: ["leave", "remove", "erase", "join-other"])
    func streamsEndWithMembership(_ how: String) async throws {
        let server = try Self.server()
        try await server.test(.live) { client in
            let port = try #require(client.port)
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)
            let stream = try EventStreamReader(port: port, path: "/api/v1/groups/\(group.id)/events", headers: ["Authorization": "Bearer \(bo.token)"])
            _ = await stream.read(for: 120) { $0.contains("member-joined") }

            switch how {
            case "leave": _ = try await client.send(.delete, "/api/v1/groups/\(group.id)/members/\(bo.id)", headers: bo.auth)
            case "remove": _ = try await client.send(.delete, "/api/v1/groups/\(group.id)/members/\(bo.id)", headers: ada.auth)
            case "erase": _ = try await client.send(.delete, "/api/v1/me", headers: bo.auth)
            default:
                let other = try await client.newGroup(by: try await client.newPlayer("Cy"))
                _ = try await client.join(other.code, as: bo)
            }
            // The response ends (the last chunk of its chunked body); the connection may stay for
            // the next request. The stream's heartbeat would keep it open for ever: the limit is
            // a bound on a hang.
            let text = await stream.read(for: 120) { $0.hasSuffix("0\r\n\r\n") }
            #expect(text.hasSuffix("0\r\n\r\n"), "the response ended: \(text.suffix(60))")

            // Whatever the group does next does not reach the former member: once a member's
            // stream has the photo, the former member's has had every chance to get it too.
            let witness = try EventStreamReader(port: port, path: "/api/v1/groups/\(group.id)/events", headers: ["Authorization": "Bearer \(ada.token)"])
            _ = await witness.read(for: 120) { $0.contains("retry:") }
            let (uploaded, _) = try await PhotoRouteTests.upload(client, try TestImages.solid(width: 300, height: 300, rgb: (9, 9, 9), ext: "jpg"), as: ada, group: group.id)
            #expect(uploaded.status == .created)
            #expect(await witness.read(for: 120) { $0.contains("photo-added") }.contains("photo-added"), "the member's stream has the photo")
            _ = await stream.read(for: 0) { _ in true }
            #expect(!stream.events.map(\.type).contains("photo-added"))
            if how != "erase" {
                let (again, _) = try await client.send(.get, "/api/v1/groups/\(group.id)/events", headers: bo.auth)
                #expect(again.status == .notFound)
            }
        }
    }

    @Test("Erasure blanks the player's name in every stored event of every group they were in")
    func erasureReachesEvents() async throws {
        let server = try Self.server()
        let groups = try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bosse Bildmakare")
            let first = try await client.newGroup(by: ada)
            _ = try await client.join(first.code, as: bo)
            _ = try await PhotoRouteTests.upload(client, try TestImages.solid(width: 300, height: 300, rgb: (9, 9, 9), ext: "jpg"), as: bo, group: first.id)
            let second = try await client.newGroup(by: bo)
            _ = try await client.send(.patch, "/api/v1/me", json: #"{"name": "Bosse B"}"#, headers: bo.auth)
            #expect(try await client.send(.delete, "/api/v1/me", headers: bo.auth).0.status == .noContent)
            return [first.id, second.id]
        }
        let database = try server.database()
        var all: [GroupEvent] = []
        for group in groups { all += try await database.events(groupId: group, after: 0, limit: 100) }
        #expect(all.contains { $0.kind == .photoAdded } && all.contains { $0.kind == .memberJoined })
        for event in all {
            #expect(!event.data.contains("Bosse"), "\(event.kind.rawValue): \(event.data)")
        }
    }

    // MARK: Join codes

    @Test("One child's wrong codes lock out that child, not the class behind the same address")
    func classBehindOneAddress() async throws {
        let server = try Self.server()
        try await server.test { client in
            let mistyper = try await client.newPlayer("Mistyper")
            for _ in 0..<30 { _ = try await client.join("ZZZZZZ", as: mistyper) }
            #expect(try await client.join("ZZZZZZ", as: mistyper).0.status == .tooManyRequests)
            // Groups of the sample venue take four: a teacher makes one for every three pupils.
            var code = ""
            for index in 0..<21 {
                if index % 3 == 0 { code = try await client.newGroup(by: try await client.newPlayer("Teacher \(index)")).code }
                let pupil = try await client.newPlayer("Pupil \(index)")
                #expect(try await client.join(code, as: pupil).0.status == .ok)
            }
        }
    }

    @Test("The join page counts unknown codes against the address, and then answers 429")
    func joinPageLimited() async throws {
        var server = try Self.server()
        server.configuration.failedJoinsPerAddress = 3
        try await server.test { client in
            let group = try await client.newGroup(by: try await client.newPlayer("Host"))
            for _ in 0..<3 {
                #expect(try await client.execute(uri: "/j/ZZZZZZ", method: .get) { $0.status } == .notFound)
            }
            let (status, retry) = try await client.execute(uri: "/j/\(group.code)", method: .get) { ($0.status, $0.headers[.retryAfter]) }
            #expect(status == .tooManyRequests)
            #expect(retry.flatMap { Int($0) } != nil)
        }
    }

    // MARK: Idempotency keys

    @Test("Idempotency keys belong to a player in a group for a task, for a day; reuse for another task is 422, a long key 400")
    func idempotencyScope() async throws {
        let server = try Self.server()
        let image = try TestImages.solid(width: 640, height: 480, rgb: (7, 77, 177), ext: "jpg")
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let first = try await client.newGroup(by: ada)
            let key: HTTPFields = [.init("Idempotency-Key")!: "same-key"]
            let (created, body) = try await PhotoRouteTests.upload(client, image, as: ada, group: first.id, query: "?mission=sharks&task=shark", headers: key)
            #expect(created.status == .created)
            let firstId = (body["photo"] as? [String: Any])?["id"] as? String

            let (reused, problem) = try await PhotoRouteTests.upload(client, image, as: ada, group: first.id, headers: key)
            #expect(reused.status == .unprocessableContent)
            #expect(problem["code"] as? String == "idempotency-key-reused")

            let long: HTTPFields = [.init("Idempotency-Key")!: String(repeating: "k", count: 129)]
            let (tooLong, longProblem) = try await PhotoRouteTests.upload(client, image, as: ada, group: first.id, headers: long)
            #expect(tooLong.status == .badRequest)
            #expect(longProblem["code"] as? String == "invalid-idempotency-key")
            let longest: HTTPFields = [.init("Idempotency-Key")!: String(repeating: "k", count: 128)]
            #expect(try await PhotoRouteTests.upload(client, image, as: ada, group: first.id, headers: longest).0.status == .created)

            // The same key in another group is another photo of that group.
            let second = try await client.newGroup(by: ada)
            let (other, otherBody) = try await PhotoRouteTests.upload(client, image, as: ada, group: second.id, query: "?mission=sharks&task=shark", headers: key)
            #expect(other.status == .created)
            let otherPhoto = try #require(otherBody["photo"] as? [String: Any])
            #expect(otherPhoto["id"] as? String != firstId)

            // A day later the key is free again.
            server.clock.advance(by: 24 * 3600 + 1)
            let (later, laterBody) = try await PhotoRouteTests.upload(client, image, as: ada, group: second.id, headers: key)
            #expect(later.status == .created)
            #expect((laterBody["photo"] as? [String: Any])?["id"] as? String != otherPhoto["id"] as? String)
        }
    }

    // MARK: Uploads

    @Test("A JPEG with fill bytes between segments is served in all three sizes, and in the album")
    func fillBytes() async throws {
        let server = try Self.server()
        let path = TestServer.repository.appendingPathComponent("Tests/Fixtures/Location/jpeg-fill-bytes.jpg").path
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let (response, body) = try await PhotoRouteTests.upload(client, path, as: ada, group: group.id)
            #expect(response.status == .created)
            let id = try #require((body["photo"] as? [String: Any])?["id"] as? String)
            for variant in ["thumb", "display", "original"] {
                #expect(try await PhotoRouteTests.bytes(client, "/api/v1/photos/\(id)/\(variant)", headers: ada.auth).0 == .ok, "\(variant)")
            }
        }
    }

    @Test("A file that cannot be served is refused at upload and leaves nothing behind")
    func unservableRefused() async throws {
        let server = try Self.server()
        // A JPEG whose segments are fine for libvips up to the image but whose markers are broken after it.
        let good = try Data(contentsOf: URL(fileURLWithPath: try TestImages.solid(width: 200, height: 200, rgb: (1, 2, 3), ext: "jpg")))
        var bytes = [UInt8](good)
        // Overwrite the first segment marker after SOI with a byte that is not a marker.
        bytes[2] = 0x00
        let path = try TestImages.write(bytes, ext: "jpg")
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let (response, _) = try await PhotoRouteTests.upload(client, path, as: ada, group: group.id)
            #expect(response.status.code >= 400 && response.status.code < 500)
        }
        #expect(PhotoRouteTests.blobFiles(server).isEmpty)
        #expect(try await server.database().counts().photos == 0)
    }

    @Test("A PNG whose chunk declares a gigabyte is refused before libvips would allocate it")
    func gigabyteChunk() async throws {
        let server = try Self.server()
        let path = TestServer.repository.appendingPathComponent("Fuzz/Corpus/FuzzImageHeader/png-gigabyte-chunk.png").path
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let (response, problem) = try await PhotoRouteTests.upload(client, path, as: ada, group: group.id)
            #expect(response.status == .unprocessableContent)
            #expect(problem["code"] as? String == "unreadable-image")
        }
    }

    @Test("A form part's headers are bounded: a 192 KB file name is a 400")
    func formHeaderBound() async throws {
        let server = try Self.server()
        let image = try Data(contentsOf: URL(fileURLWithPath: try TestImages.solid(width: 200, height: 200, rgb: (1, 2, 3), ext: "jpg")))
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            var body = Data("--XyZ\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"\(String(repeating: "a", count: 192 * 1024)).jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
            body += image + Data("\r\n--XyZ--\r\n".utf8)
            var headers = ada.auth
            headers[.contentType] = "multipart/form-data; boundary=XyZ"
            let status = try await client.execute(uri: "/api/v1/groups/\(group.id)/photos", method: .post, headers: headers, body: ByteBuffer(bytes: body)) { $0.status }
            #expect(status == .badRequest)
        }
        #expect(try await server.database().counts().photos == 0)
    }

    // MARK: Files

    @Test("The data folder is 0700 and what the server writes is 0600; the writer runs with synchronous=FULL")
    func privateFilesAndDurability() async throws {
        let server = try Self.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            #expect(try await PhotoRouteTests.upload(client, try TestImages.solid(width: 300, height: 300, rgb: (9, 9, 9), ext: "jpg"), as: ada, group: group.id).0.status == .created)
        }
        let data = server.configuration.dataDirectory
        func mode(_ path: String) throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
        }
        #expect(try mode(data) == 0o700)
        #expect(try mode(data + "/groupie.sqlite") == 0o600)
        for file in PhotoRouteTests.blobFiles(server) {
            #expect(try mode(data + "/blobs/" + file) == 0o600, "\(file)")
        }
        #expect(try await server.database().writerSynchronous() == 2)
    }

    // MARK: Paths and methods

    @Test("Methods a path does not have are 405 with Allow; asset paths do not redirect off the origin or serve NUL names")
    func pathsAndMethods() async throws {
        let server = try Self.server()
        try await server.test { client in
            let (trace, allow) = try await client.execute(uri: "/api/v1/me", method: .init("TRACE")!) { ($0.status, $0.headers[.allow]) }
            #expect(trace == .methodNotAllowed)
            #expect(allow == "DELETE, GET, PATCH")
            #expect(try await client.execute(uri: "/healthz", method: .delete) { $0.status } == .methodNotAllowed)
            #expect(try await client.execute(uri: "/no/such/path", method: .get) { $0.status } == .notFound)
            let (redirect, location) = try await client.execute(uri: "/assets/web", method: .get) { ($0.status, $0.headers[.location]) }
            if (300..<400).contains(redirect.code) { #expect(location == "/assets/web/") }
            #expect(try await client.execute(uri: "/assets/web/index.html%00.png", method: .get) { $0.status } == .notFound)
        }
    }

    @Test("The API agrees with its document: null names, empty languages and bad ids in queries are refused")
    func documentAgreement() async throws {
        let server = try Self.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            #expect(try await client.send(.patch, "/api/v1/me", json: #"{"name": null}"#, headers: ada.auth).0.status == .unprocessableContent)
            #expect(try await client.send(.patch, "/api/v1/me", json: #"{"lang": null}"#, headers: ada.auth).0.status == .ok)
            #expect(try await client.send(.post, "/api/v1/players", json: #"{"name": "Bo", "lang": ""}"#).0.status == .unprocessableContent)
            #expect(try await client.send(.post, "/api/v1/players", json: #"{"name": "Bo", "lang": "de-CH-1996"}"#).0.status == .created)
            #expect(try await client.send(.get, "/api/v1/groups/\(group.id)/photos?mission=%1A", headers: ada.auth).0.status == .badRequest)
            #expect(try await client.send(.get, "/api/v1/groups/\(group.id)/photos?mission=sharks", headers: ada.auth).0.status == .ok)
            let (choice, problem) = try await client.execute(uri: "/api/v1/groups/\(group.id)/missions/sharks/tasks/shark/choice", method: .put, headers: ada.auth) {
                ($0.status, (try? JSONSerialization.jsonObject(with: Data(buffer: $0.body))) as? [String: Any] ?? [:])
            }
            #expect(choice == .badRequest)
            #expect(problem["code"] as? String == "malformed-json")
        }
    }

    // MARK: Connections

    /// Seconds until the server closes a connection that sent `bytes` and nothing more.
    static func secondsUntilClosed(port: Int, sending bytes: String, limit: Double) async throws -> Double {
        let socket = try EventStreamReader.connect(port: port)
        defer { close(socket) }
        let started = Date()
        if !bytes.isEmpty { _ = bytes.withCString { send(socket, $0, strlen($0), 0) } }
        var chunk = [UInt8](repeating: 0, count: 4096)
        while Date().timeIntervalSince(started) < limit {
            let count = recv(socket, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            if count == 0 { return Date().timeIntervalSince(started) }
            if count < 0, errno != EAGAIN, errno != EWOULDBLOCK { return Date().timeIntervalSince(started) }
            try await Task.sleep(for: .milliseconds(20))
        }
        return limit
    }

    /// One JSON request on a connection of its own (`Connection: close`), its answer's JSON.
    static func exchange(port: Int, _ requestLine: String, json: String, token: String? = nil) async throws -> [String: Any] {
        let socket = try EventStreamReader.connect(port: port)
        defer { close(socket) }
        var request = "\(requestLine) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\n"
        if let token { request += "Authorization: Bearer \(token)\r\n" }
        request += "Content-Length: \(json.utf8.count)\r\n\r\n\(json)"
        _ = request.withCString { send(socket, $0, strlen($0), 0) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let started = Date()
        while Date().timeIntervalSince(started) < 30 {
            let count = recv(socket, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            if count == 0 { break }
            if count > 0 { received += chunk[0..<count]; continue }
            guard errno == EAGAIN || errno == EWOULDBLOCK else { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        let text = String(decoding: received, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n"),
            let body = try? JSONSerialization.jsonObject(with: Data(text[split.upperBound...].utf8)) as? [String: Any]
        else { throw TestFailure("no JSON answer to \(requestLine): \(text.prefix(300))") }
        return body
    }

    @Test("Half-sent headers, stalled bodies and idle connections are closed; event streams stay open with their heartbeats")
    func timeouts() async throws {
        var server = try Self.server()
        server.configuration.timeouts = ConnectionTimeouts(header: .seconds(1), body: .seconds(1), idle: .seconds(2))
        try await server.test(.live) { client in
            let port = try #require(client.port)
            // The player and the group come over connections of their own, each closed after its
            // answer: the test client's connection may meet the 1-second header timeout on a busy
            // machine before its first request.
            let player = try await Self.exchange(port: port, "POST /api/v1/players", json: #"{"name": "Ada"}"#)
            let token = try #require(player["token"] as? String)
            let created = try await Self.exchange(port: port, "POST /api/v1/groups", json: #"{"venueId": "aquarium"}"#, token: token)
            let groupId = try #require((created["group"] as? [String: Any])?["id"] as? String)
            let stream = try EventStreamReader(port: port, path: "/api/v1/groups/\(groupId)/events", headers: ["Authorization": "Bearer \(token)"])

            // Closed at all (the limit is far past every timeout; without timeouts they stay open),
            // and not before the timeout: the bounds are loose so that a loaded machine passes.
            let limit = 15.0
            let silent = try await Self.secondsUntilClosed(port: port, sending: "", limit: limit)
            #expect(silent >= 0.9 && silent < limit, "a connection that sends nothing")
            let halfHeader = try await Self.secondsUntilClosed(port: port, sending: "GET /healthz HTTP/1.1\r\nHost: x\r\n", limit: limit)
            #expect(halfHeader >= 0.9 && halfHeader < limit, "half-sent headers")
            let halfBody = try await Self.secondsUntilClosed(
                port: port, sending: "POST /api/v1/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{", limit: limit
            )
            #expect(halfBody >= 0.9 && halfBody < limit, "a stalled body")
            let idle = try await Self.secondsUntilClosed(port: port, sending: "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", limit: limit)
            #expect(idle >= 1.9 && idle < limit, "an idle kept-alive connection, after its answer")

            let earlier = await stream.read(for: 0) { _ in true }.count
            let text = await stream.read(for: 120) { $0.dropFirst(earlier).contains(": heartbeat") }
            #expect(text.dropFirst(earlier).contains(": heartbeat"), "heartbeats keep coming after every timeout has passed")
            #expect(!text.hasSuffix("0\r\n\r\n"))
        }
    }
}
