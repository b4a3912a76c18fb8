import Foundation
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GroupieServer

/// The second attack's cases against files: what a careless editor or a hostile member of
/// staff can put in the missions and assets folders.
@Suite("Second attack: files")
struct SecondAttackFileTests {
    static func venueTitle(_ client: some TestClientProtocol) async throws -> String? {
        let (_, venue) = try await client.json("/api/v1/venues/aquarium?lang=sv")
        return ((venue["missions"] as? [[String: Any]])?.first?["title"]) as? String
    }

    @Test("A FIFO in the missions folder neither stops the start nor later reloads, and is skipped with a log line")
    func fifoInMissions() async throws {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium(title: "Hajar"))
        #expect(mkfifo(server.missions + "/fifo.yaml", 0o644) == 0)
        try await server.test(.live) { client in
            #expect(try await Self.venueTitle(client) == "Hajar")
            try server.write("aquarium.yaml", TestServer.aquarium(title: "Rockor"))
            #expect(try await ReloadTests.eventually { try await Self.venueTitle(client) == "Rockor" } != nil, "an edit beside the FIFO was not applied")
            try server.remove("fifo.yaml")
            try server.write("aquarium.yaml", TestServer.aquarium(title: "Hajar igen"))
            #expect(try await ReloadTests.eventually { try await Self.venueTitle(client) == "Hajar igen" } != nil, "an edit after the FIFO went was not applied")
        }
        // The log line, as the real server writes it at its start.
        #expect(mkfifo(server.missions + "/fifo.yaml", 0o644) == 0)
        let log = try ScratchFolder.make("groupie-fifo-log") + "/errors"
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: log).deletingLastPathComponent().path) }
        let (process, port) = try CommandLineTests.start(logLevel: "warning", errors: .file(log), on: server)
        defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        try await eventually(.seconds(120), "the server's start", every: .milliseconds(100)) {
            if !process.isRunning { return true }
            return await LocalHTTP.status(port: port, "/healthz") != nil
        }
        #expect(process.isRunning)
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(text.contains("fifo.yaml") && text.contains("a FIFO (named pipe)"), "the log: \(text)")
    }

    @Test("A link in the assets folder to a file outside it answers 404; a link to a file inside it is served")
    func symlinkedAssets() async throws {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-outside-\(UUID().uuidString).svg").path
        try Data("secret outside the assets folder".utf8).write(to: URL(fileURLWithPath: outside))
        try FileManager.default.createDirectory(atPath: server.assets + "/logos", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: server.assets + "/logos/evil.svg", withDestinationPath: outside)
        try FileManager.default.createSymbolicLink(atPath: server.assets + "/logos/etc", withDestinationPath: "/etc")
        try FileManager.default.createSymbolicLink(atPath: server.assets + "/logos/fish.svg", withDestinationPath: "../icons/fish.svg")
        #expect(mkfifo(server.assets + "/logos/pipe.svg", 0o644) == 0)
        try await server.test(.live) { client in
            for path in ["/assets/logos/evil.svg", "/assets/logos/etc/hostname", "/assets/logos/etc/passwd", "/assets/logos/pipe.svg"] {
                let (status, body) = try await client.execute(uri: path, method: .get) { ($0.status, String(buffer: $0.body)) }
                #expect(status == .notFound, "\(path)")
                #expect(!body.contains("secret") && !body.contains("root:"), "\(path)")
            }
            let (status, body) = try await client.execute(uri: "/assets/logos/fish.svg", method: .get) { ($0.status, String(buffer: $0.body)) }
            #expect(status == .ok)
            #expect(body.hasPrefix("<svg"))
            #expect(try await client.execute(uri: "/assets/icons/fish.svg", method: .get) { $0.status } == .ok)
        }
    }
}

/// The second attack's cases from a visitor's phone.
@Suite("Second attack: visitors")
struct SecondAttackVisitorTests {
    @Test("A stream asked from beyond the group's latest event is told to resync from the latest, and then misses nothing")
    func lastEventIdAhead() async throws {
        let server = try EventTests.server()
        try await server.test(.live) { client in
            let port = try #require(client.port)
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)  // the group's event 1
            let ahead = try EventStreamReader(port: port, path: "/api/v1/groups/\(group.id)/events", headers: ["Authorization": "Bearer \(ada.token)", "Last-Event-ID": "50"])
            let text = await ahead.read(for: 120) { $0.contains("event: resync") && $0.hasSuffix("0\r\n\r\n") }
            #expect(text.contains("event: resync\ndata: {\"latestEventId\":1}"), "\(text.suffix(200))")
            #expect(text.hasSuffix("0\r\n\r\n"), "the stream ends")

            // Reconnected from the id the resync gave, every new event arrives.
            let resumed = try EventStreamReader(port: port, path: "/api/v1/groups/\(group.id)/events", headers: ["Authorization": "Bearer \(ada.token)", "Last-Event-ID": "1"])
            // Five events in a group of at most four: two join, one leaves, one joins, one leaves.
            let cy = try await client.newPlayer("Cy"), di = try await client.newPlayer("Di"), ed = try await client.newPlayer("Ed")
            _ = try await client.join(group.code, as: cy)
            _ = try await client.join(group.code, as: di)
            _ = try await client.send(.delete, "/api/v1/groups/\(group.id)/members/\(bo.id)", headers: bo.auth)
            _ = try await client.join(group.code, as: ed)
            _ = try await client.send(.delete, "/api/v1/groups/\(group.id)/members/\(cy.id)", headers: cy.auth)
            _ = await resumed.read(for: 120) { $0.components(separatedBy: "event: member-left").count == 3 }
            #expect(resumed.events.map(\.id) == [2, 3, 4, 5, 6])
            #expect(resumed.events.map(\.type) == ["member-joined", "member-joined", "member-left", "member-joined", "member-left"])
        }
    }

    @Test("Asking a collage at a hundred sizes draws and keeps at most one picture for each of four sizes")
    func collageSizes() async throws {
        let server = try CollageRouteTests.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            _ = try await CollageRouteTests.completeReef(client, as: ada, group: group.id)
            #expect(try await ReloadTests.eventually { CollageRouteTests.collageFiles(server, group: group.id).count == 1 } != nil)
            for size in Array((3997...4096).reversed()) + [256, 700, 1500, 2048] {
                let (status, bytes) = try await PhotoRouteTests.bytes(client, "/api/v1/groups/\(group.id)/missions/reef/collage.jpg?size=\(size)", headers: ada.auth)
                #expect(status == .ok, "\(size)")
                if size == 3997 || size == 256 {
                    let path = try TestImages.write([UInt8](bytes), ext: "jpg")
                    let drawn = try TestImages.header(path)
                    #expect(max(drawn.width, drawn.height) == (size == 256 ? 512 : 4096), "\(size): \(drawn)")
                }
            }
            let files = CollageRouteTests.collageFiles(server, group: group.id)
            #expect(files.count == 4, "\(files)")
            #expect(Set(files.map { $0.split(separator: "-").last.map(String.init) ?? "" }) == ["512.jpg", "1024.jpg", "2048.jpg", "4096.jpg"])
        }
    }
}

extension SecondAttackVisitorTests {
    @Test("A removed member's signed collage URL never shows the picture made after the removal")
    func signedCollageNamesItsPicture() async throws {
        let server = try CollageRouteTests.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)
            _ = try await CollageRouteTests.completeReef(client, as: ada, group: group.id)
            #expect(try await ReloadTests.eventually {
                CollageRouteTests.reefCollage(try await CollageRouteTests.document(client, group: group.id, as: bo))?["status"] as? String == "ready"
            } != nil)
            let old = try #require((CollageRouteTests.reefCollage(try await CollageRouteTests.document(client, group: group.id, as: bo))?["urls"] as? [String: Any])?["jpg"] as? String)
            let (before, _) = try await PhotoRouteTests.bytes(client, old)
            #expect(before == .ok)

            // Bo is removed; Ada chooses another red photo, which makes a new picture.
            #expect(try await client.send(.delete, "/api/v1/groups/\(group.id)/members/\(bo.id)", headers: ada.auth).0.status == .noContent)
            let another = try TestImages.solid(width: 600, height: 900, rgb: (250, 120, 120), ext: "jpg")
            let (_, uploaded) = try await PhotoRouteTests.upload(client, another, as: ada, group: group.id, query: "?mission=reef&task=red")
            let anotherId = try #require((uploaded["photo"] as? [String: Any])?["id"] as? String)
            _ = try await client.send(.put, "/api/v1/groups/\(group.id)/missions/reef/tasks/red/choice", json: #"{"photoId": "\#(anotherId)"}"#, headers: ada.auth)
            var current: String?
            #expect(try await ReloadTests.eventually {
                current = (CollageRouteTests.reefCollage(try await CollageRouteTests.document(client, group: group.id, as: ada))?["urls"] as? [String: Any])?["jpg"] as? String
                return current != nil && current != old
            } != nil, "the new picture gets a new URL")
            let (after, problem) = try await client.send(.get, old)
            #expect(after.status == .notFound)
            #expect(problem["code"] as? String == "collage-changed")
            for size in ["", "&size=512", "&size=4096"] {
                #expect(try await client.send(.get, old + size).0.status == .notFound, "\(size)")
            }
            #expect(try await PhotoRouteTests.bytes(client, try #require(current)).0 == .ok)
        }
    }
}

/// Races and crashes that could lose a photo's files.
@Suite("Second attack: races")
struct SecondAttackRaceTests {
    /// Ada's new group with a second member in it.
    static func twoMembers(_ client: some TestClientProtocol, second: String = "Bo") async throws -> (TestPlayer, TestPlayer, (id: String, code: String)) {
        let ada = try await client.newPlayer("Ada"), other = try await client.newPlayer(second)
        let group = try await client.newGroup(by: ada)
        _ = try await client.join(group.code, as: other)
        return (ada, other, group)
    }

    /// The id of the photo an upload answered with.
    static func photoId(_ body: [String: Any]) throws -> String {
        try #require((body["photo"] as? [String: Any])?["id"] as? String)
    }

    /// Every image of the photo is served to `player`.
    static func expectServed(_ client: some TestClientProtocol, _ photoId: String, to player: TestPlayer, _ label: String) async throws {
        for variant in ["thumb", "display", "original"] {
            #expect(try await PhotoRouteTests.bytes(client, "/api/v1/photos/\(photoId)/\(variant)", headers: player.auth).0 == .ok, "\(label) \(variant)")
        }
    }

    @Test("The same bytes uploaded twice get files of their own: deleting the first photo leaves the second whole")
    func sameBytesOwnFiles() async throws {
        let server = try PhotoRouteTests.server()
        let image = try TestImages.solid(width: 500, height: 400, rgb: (200, 30, 90), ext: "jpg")
        try await server.test { client in
            let (ada, bo, group) = try await Self.twoMembers(client)
            let (_, first) = try await PhotoRouteTests.upload(client, image, as: ada, group: group.id)
            let (_, second) = try await PhotoRouteTests.upload(client, image, as: bo, group: group.id)
            let (firstId, secondId) = (try Self.photoId(first), try Self.photoId(second))
            #expect(PhotoRouteTests.blobFiles(server).count == 8, "two sets of four files")
            #expect(try await client.send(.delete, "/api/v1/photos/\(firstId)", headers: ada.auth).0.status == .noContent)
            #expect(PhotoRouteTests.blobFiles(server).count == 4)
            try await Self.expectServed(client, secondId, to: bo, "")
        }
    }

    @Test("A member uploads the bytes another is deleting, twenty times: every photo answered 201 keeps its files")
    func uploadWhileDeleting() async throws {
        let server = try PhotoRouteTests.server()
        let image = try TestImages.solid(width: 400, height: 300, rgb: (20, 140, 60), ext: "jpg")
        try await server.test { client in
            let (ada, bo, group) = try await Self.twoMembers(client)
            for round in 0..<20 {
                let (_, first) = try await PhotoRouteTests.upload(client, image, as: ada, group: group.id)
                let firstId = try Self.photoId(first)
                async let deleted = client.send(.delete, "/api/v1/photos/\(firstId)", headers: ada.auth)
                async let uploaded = PhotoRouteTests.upload(client, image, as: bo, group: group.id)
                let (_, body) = try await uploaded
                #expect(try await deleted.0.status == .noContent)
                try await Self.expectServed(client, try Self.photoId(body), to: bo, "round \(round)")
            }
        }
    }
}

extension SecondAttackRaceTests {
    @Test("Erasure stores what the group lost as its events: the photo, its task, the member; the group read shows none of it at once")
    func erasureEvents() async throws {
        let server = try PhotoRouteTests.server()
        let image = try TestImages.solid(width: 400, height: 300, rgb: (90, 20, 160), ext: "jpg")
        try await server.test { client in
            let (ada, bo, group) = try await Self.twoMembers(client, second: "Bosse Bildmakare")
            _ = try await PhotoRouteTests.upload(client, image, as: bo, group: group.id, query: "?mission=sharks&task=shark")
            // Read once, so that a cached document of this version exists.
            let before = try await CollageRouteTests.document(client, group: group.id, as: ada)
            #expect("\(before)".contains("Bosse Bildmakare"))
            let seen = try await server.database().events(groupId: group.id, after: 0, limit: 100).count
            #expect(try await client.send(.delete, "/api/v1/me", headers: bo.auth).0.status == .noContent)
            let after = try await server.database().events(groupId: group.id, after: seen, limit: 100)
            #expect(after.map(\.kind.rawValue).prefix(2) == ["photo-removed", "task-undone"])
            #expect(after.map(\.kind.rawValue).contains("member-left"))
            #expect(after.allSatisfy { !$0.data.contains("Bosse") })
            let document = try await CollageRouteTests.document(client, group: group.id, as: ada)
            #expect(!"\(document)".contains("Bosse"), "the group read names the erased player no more")
            #expect(!"\(document)".contains("\"photoId\""), "nor shows their photo as a task's")
        }
    }

    @Test("A member leaves and joins again at the same moment, thirty times: the last of their events says what they are")
    func leaveAndRejoin() async throws {
        let server = try PhotoRouteTests.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let group = try await client.newGroup(by: ada)
            for round in 0..<30 {
                _ = try await client.join(group.code, as: bo)
                async let left = client.send(.delete, "/api/v1/groups/\(group.id)/members/\(bo.id)", headers: bo.auth)
                async let joined = client.join(group.code, as: bo)
                _ = try await (left, joined)
                let member = try await server.database().membership(playerId: bo.id, groupId: group.id) != nil
                let last = try await server.database().events(groupId: group.id, after: 0, limit: 10_000).last { $0.data.contains(bo.id) }
                #expect(last?.kind == (member ? .memberJoined : .memberLeft), "round \(round): member \(member), last event \(String(describing: last?.kind))")
            }
        }
    }
}

extension SecondAttackVisitorTests {
    /// The status line of a stream's answer, once it has come.
    static func status(_ stream: EventStreamReader) async -> String {
        let text = await stream.read(for: 120) { $0.contains("\r\n") }
        return String(text.prefix { $0 != "\r" && $0 != "\r\n" })
    }

    @Test("Event streams are bounded per player (the newest wins), per group and in all, and requests still find a connection")
    func streamBounds() async throws {
        var configured = try EventTests.server()
        configured.configuration.maxConnections = 32
        configured.configuration.streamsPerPlayer = 3
        configured.configuration.streamsPerGroup = 5
        configured.configuration.streamShare = 0.25  // 8 streams in all
        let server = configured
        try await server.test(.live) { client in
            let port = try #require(client.port)
            var open: [EventStreamReader] = []
            func stream(_ group: (id: String, code: String), _ player: TestPlayer) throws -> EventStreamReader {
                try EventStreamReader(port: port, path: "/api/v1/groups/\(group.id)/events", headers: ["Authorization": "Bearer \(player.token)"])
            }
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let first = try await client.newGroup(by: ada)
            _ = try await client.join(first.code, as: bo)
            for _ in 0..<3 {
                open.append(try stream(first, ada))
                #expect(await Self.status(open.last!) == "HTTP/1.1 200 OK")
            }
            // One player's fourth stream (a reloaded page) is served, and ends their oldest.
            let fourth = try stream(first, ada)
            #expect(await Self.status(fourth) == "HTTP/1.1 200 OK", "one player's fourth stream")
            let oldest = await open[0].read(for: 120) { $0.hasSuffix("0\r\n\r\n") }
            #expect(oldest.hasSuffix("0\r\n\r\n"), "the player's oldest stream ends")
            open[0] = fourth
            // The group's bound: Bo's second stream is the group's sixth.
            open.append(try stream(first, bo))
            open.append(try stream(first, bo))
            for reader in open.suffix(2) { #expect(await Self.status(reader) == "HTTP/1.1 200 OK") }
            let sixth = try stream(first, bo)
            #expect(await Self.status(sixth) == "HTTP/1.1 429 Too Many Requests", "the group's sixth stream")
            // The bound in all: 8 streams; the ninth is refused, a group read is not.
            let cy = try await client.newPlayer("Cy"), di = try await client.newPlayer("Di")
            let second = try await client.newGroup(by: cy)
            _ = try await client.join(second.code, as: di)
            for player in [cy, cy, di] {
                open.append(try stream(second, player))
                #expect(await Self.status(open.last!) == "HTTP/1.1 200 OK")
            }
            let ninth = try stream(second, di)
            #expect(await Self.status(ninth) == "HTTP/1.1 503 Service Unavailable", "the ninth stream in all")
            #expect(try await client.send(.get, "/api/v1/groups/\(second.id)", headers: di.auth).0.status == .ok)
            // A stream that ends gives its place back.
            open.removeLast()
            var reopened = "none"
            _ = try await ReloadTests.eventually {
                reopened = await Self.status(try stream(second, di))
                return reopened == "HTTP/1.1 200 OK"
            }
            #expect(reopened == "HTTP/1.1 200 OK")
        }
    }
}

extension SecondAttackVisitorTests {
    @Test("Streams opened all at once keep their bounds: a player's newest four stay and the rest end; a group never holds more than its bound")
    func streamsAtOnce() async throws {
        var configured = try EventTests.server()
        configured.configuration.maxConnections = 512
        configured.configuration.streamsPerPlayer = 4
        configured.configuration.streamsPerGroup = 10
        let server = configured
        try await server.test(.live) { client in
            let port = try #require(client.port)
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            var members = [ada]
            for name in ["Bo", "Cy", "Di"] {
                let member = try await client.newPlayer(name)
                _ = try await client.join(group.code, as: member)
                members.append(member)
            }
            // Sixty streams asked at once, fifteen by each member, before any answer is read.
            let readers = try members.flatMap { member in
                try (0..<15).map { _ in
                    (member.token, try EventStreamReader(port: port, path: "/api/v1/groups/\(group.id)/events", headers: ["Authorization": "Bearer \(member.token)"]))
                }
            }
            var served: [(token: String, reader: EventStreamReader)] = []
            for (token, reader) in readers {
                let status = await Self.status(reader)
                if status == "HTTP/1.1 200 OK" {
                    served.append((token, reader))
                } else {
                    #expect(status == "HTTP/1.1 429 Too Many Requests", "\(status)")
                }
            }
            #expect(served.count >= 4)
            // Every stream past a player's newest four ends; what stays open keeps both bounds.
            var open: [String] = []
            try await eventually(.seconds(120), "every stream past the bounds ended") {
                open = []
                for (token, reader) in served {
                    let text = await reader.read(for: 0) { $0.hasSuffix("0\r\n\r\n") }
                    if !text.hasSuffix("0\r\n\r\n") { open.append(token) }
                }
                return open.count <= 10 && Dictionary(grouping: open) { $0 }.values.allSatisfy { $0.count <= 4 }
            }
            #expect(open.count <= 10 && !open.isEmpty, "\(open.count) streams open")
        }
    }
}

/// What one address may make.
@Suite("Second attack: creation limits")
struct SecondAttackCreationTests {
    @Test("Players and groups made from one address are limited, each kind on its own; another address goes on")
    func creationsPerAddress() async throws {
        var server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        server.configuration.creationsPerAddress = 5
        server.configuration.trustForwardedFor = true
        let clock = server.clock
        try await server.test { client in
            func newPlayer(_ name: String, from address: String) async throws -> (TestResponse, [String: Any]) {
                try await client.send(.post, "/api/v1/players", json: "{\"name\": \"\(name)\"}", headers: [.xForwardedFor: address])
            }
            var tokens: [String] = []
            for index in 0..<5 {
                let (response, body) = try await newPlayer("P\(index)", from: "10.0.0.1")
                #expect(response.status == .created)
                tokens.append(try #require(body["token"] as? String))
            }
            let (refused, problem) = try await newPlayer("P5", from: "10.0.0.1")
            #expect(refused.status == .tooManyRequests)
            #expect(problem["code"] as? String == "too-many-created")
            #expect(Int(refused.headers[.retryAfter] ?? "") ?? 0 > 0)
            #expect(try await newPlayer("Other", from: "10.0.0.2").0.status == .created)

            // Groups are counted apart from players: five from the address that made its players.
            for (index, token) in tokens.enumerated() {
                let (response, _) = try await client.send(
                    .post, "/api/v1/groups", json: #"{"venueId": "aquarium"}"#, headers: [.authorization: "Bearer \(token)", .xForwardedFor: "10.0.0.1"]
                )
                #expect(response.status == .created, "group \(index)")
            }
            let (sixth, groupProblem) = try await client.send(
                .post, "/api/v1/groups", json: #"{"venueId": "aquarium"}"#, headers: [.authorization: "Bearer \(tokens[0])", .xForwardedFor: "10.0.0.1"]
            )
            #expect(sixth.status == .tooManyRequests)
            #expect(groupProblem["code"] as? String == "too-many-created")
            // The window passes: the address may make players again.
            clock.advance(by: 601)
            #expect(try await newPlayer("P6", from: "10.0.0.1").0.status == .created)
        }
    }
}

/// Staff sign-in under a burst of guesses.
@Suite("Second attack: staff sign-in")
struct SecondAttackSignInTests {
    @Test("300 concurrent wrong passwords for one account from one address: at most the limit are checked, the rest refused, visitors served meanwhile")
    func concurrentGuesses() async throws {
        let server = try StaffConsoleTests.server()
        try await StaffConsoleTests.addStaff(server, "eva@museum.example", .viewer, venues: ["aquarium"])
        let image = try TestImages.solid(width: 600, height: 400, rgb: (30, 60, 90), ext: "jpg")
        try await server.test(.live) { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let (_, uploaded) = try await PhotoRouteTests.upload(client, image, as: ada, group: group.id)
            let photoId = try #require((uploaded["photo"] as? [String: Any])?["id"] as? String)
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { tasks in
                for _ in 0..<300 {
                    tasks.addTask { try await StaffConsoleTests.signIn(client, "eva@museum.example", password: "not the password").0.status }
                }
                // A visitor's thumbnail in the middle of the burst is served.
                let (thumb, _) = try await PhotoRouteTests.bytes(client, "/api/v1/photos/\(photoId)/thumb", headers: ada.auth)
                #expect(thumb == .ok)
                return try await tasks.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            let checked = statuses.filter { $0 == .unauthorized }.count
            #expect(checked <= StaffLoginLimits.perAccountAndAddress, "\(checked) passwords were checked")
            #expect(checked >= 1)
            #expect(statuses.allSatisfy { [.unauthorized, .tooManyRequests, .serviceUnavailable].contains($0) }, "\(Set(statuses.map(\.code)))")
            // The guessing address stays refused, the right password too (another address is not:
            // StaffConsoleTests.signInLimits).
            #expect(try await StaffConsoleTests.signIn(client, "eva@museum.example").0.status == .tooManyRequests)
        }
    }
}
