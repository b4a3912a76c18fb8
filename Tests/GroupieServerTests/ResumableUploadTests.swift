import Foundation
import GroupieServer
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Resumable uploads")
struct ResumableUploadTests {
    static let contentRange = HTTPField.Name("Content-Range")!
    static let uploadOffset = HTTPField.Name("Upload-Offset")!

    /// Sends `bytes[range]` as the part `range` of a photo of `total` bytes (the photo's own
    /// length unless given), or no bytes with `bytes */total` when `range` is nil.
    static func put(
        _ client: some TestClientProtocol, _ bytes: Data, _ range: ClosedRange<Int>?, total: Int? = nil, key: String,
        as player: TestPlayer, group: String, query: String = "", body: Data? = nil, header: String? = nil, from address: String? = nil
    ) async throws -> (TestResponse, [String: Any]) {
        var headers = player.auth
        if let address { headers[HTTPField.Name("X-Forwarded-For")!] = address }
        headers[.contentType] = "application/octet-stream"
        let total = total ?? bytes.count
        headers[contentRange] = header ?? (range.map { "bytes \($0.lowerBound)-\($0.upperBound)/\(total)" } ?? "bytes */\(total)")
        let part = body ?? range.map { bytes.subdata(in: $0.lowerBound..<($0.upperBound + 1)) } ?? Data()
        return try await client.execute(
            uri: "/api/v1/groups/\(group)/uploads/\(key)\(query)", method: .put, headers: headers, body: ByteBuffer(bytes: part)
        ) { response in
            (response, (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any] ?? [:])
        }
    }

    static func offset(_ client: some TestClientProtocol, key: String, as player: TestPlayer, group: String) async throws -> Int? {
        let (response, body) = try await client.send(.get, "/api/v1/groups/\(group)/uploads/\(key)", headers: player.auth)
        if response.status == .notFound { return nil }
        #expect(response.status == .ok)
        #expect(response.headers[uploadOffset] == (body["offset"] as? Int).map(String.init))
        return body["offset"] as? Int
    }

    /// Files kept for uploads not yet complete.
    static func partialFiles(_ server: TestServer) -> [String] {
        let root = server.configuration.dataDirectory + "/uploads"
        let all = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String]) ?? []
        return all.filter { $0.hasSuffix("/data") }
    }

    @Test("An upload sent in parts, cut off half-way and resumed from the server's offset, makes the photo a one-shot upload makes")
    func resumeAfterDrop() async throws {
        let server = try PhotoRouteTests.server()
        let path = try TestImages.jpegWithEXIF(width: 2000, height: 1500, orientation: 6)
        let image = try Data(contentsOf: URL(fileURLWithPath: path))
        let half = image.count / 2
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            #expect(try await Self.offset(client, key: "k1", as: ada, group: group.id) == nil)

            let (first, firstBody) = try await Self.put(client, image, 0...(half - 1), key: "k1", as: ada, group: group.id, query: "?mission=sharks&task=shark")
            #expect(first.status == .ok)
            #expect(firstBody["offset"] as? Int == half && firstBody["total"] as? Int == image.count)
            #expect(first.headers[Self.uploadOffset] == String(half))
            // The connection drops a quarter into the second part: nothing of it counts.
            let (cut, cutBody) = try await Self.put(
                client, image, half...(image.count - 1), key: "k1", as: ada, group: group.id, query: "?mission=sharks&task=shark",
                body: image.subdata(in: half..<(half + half / 2))
            )
            #expect(cut.status == .badRequest && cutBody["code"] as? String == "range-length-mismatch")
            #expect(try await Self.offset(client, key: "k1", as: ada, group: group.id) == half)

            let (done, doneBody) = try await Self.put(client, image, half...(image.count - 1), key: "k1", as: ada, group: group.id, query: "?mission=sharks&task=shark")
            #expect(done.status == .created)
            let resumed = try #require(doneBody["photo"] as? [String: Any])
            #expect(resumed["taskId"] as? String == "shark")
            #expect(resumed["width"] as? Int == 1500 && resumed["height"] as? Int == 2000)

            // The same photo sent in one go.
            let (oneShot, oneShotBody) = try await PhotoRouteTests.upload(client, path, as: ada, group: group.id)
            #expect(oneShot.status == .created)
            let whole = try #require(oneShotBody["photo"] as? [String: Any])
            for variant in ["original", "display", "thumb"] {
                let (_, a) = try await PhotoRouteTests.bytes(client, "/api/v1/photos/\(resumed["id"] as? String ?? "")/\(variant)", headers: ada.auth)
                let (_, b) = try await PhotoRouteTests.bytes(client, "/api/v1/photos/\(whole["id"] as? String ?? "")/\(variant)", headers: ada.auth)
                #expect(!a.isEmpty && a == b, "\(variant) differs")
            }

            // The completing part again (its answer was lost): the same photo, not a second.
            let (again, againBody) = try await Self.put(client, image, nil, key: "k1", as: ada, group: group.id, query: "?mission=sharks&task=shark")
            #expect(again.status == .created)
            #expect((againBody["photo"] as? [String: Any])?["id"] as? String == resumed["id"] as? String)
            // Asked where the upload stands instead: the photo it made, and no offset.
            let (asked, askedBody) = try await client.send(.get, "/api/v1/groups/\(group.id)/uploads/k1", headers: ada.auth)
            #expect(asked.status == .ok && asked.headers[Self.uploadOffset] == nil && askedBody["offset"] == nil)
            #expect((askedBody["photo"] as? [String: Any])?["id"] as? String == resumed["id"] as? String)
            #expect(askedBody["placement"] as? String == "task")
            // Nobody else learns of it by its key.
            let bo = try await client.newPlayer("Bo")
            _ = try await client.join(group.code, as: bo)
            let (stranger, _) = try await client.send(.get, "/api/v1/groups/\(group.id)/uploads/k1", headers: bo.auth)
            #expect(stranger.status == .notFound)
        }
        #expect(try await server.database().counts().photos == 2)
        #expect(Self.partialFiles(server).isEmpty)
        #expect(PhotoRouteTests.temporaryFiles(server).isEmpty)
    }

    @Test("A part whose connection drops half-way counts for nothing; the upload goes on from the bytes before it")
    func droppedConnection() async throws {
        let server = try PhotoRouteTests.server()
        let image = try Data(contentsOf: URL(fileURLWithPath: try TestImages.jpegWithEXIF(width: 1200, height: 900, orientation: 1)))
        let half = image.count / 2
        try await server.test(.live) { client in
            let port = try #require(client.port)
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            #expect(try await Self.put(client, image, 0...(half - 1), key: "k", as: ada, group: group.id).0.status == .ok)

            let socket = try EventStreamReader.connect(port: port)
            let head = "PUT /api/v1/groups/\(group.id)/uploads/k HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(ada.token)\r\n"
                + "Content-Range: bytes \(half)-\(image.count - 1)/\(image.count)\r\nContent-Length: \(image.count - half)\r\n\r\n"
            let sent = Data(head.utf8) + image.subdata(in: half..<(half + (image.count - half) / 2))
            _ = sent.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) }
            try await Task.sleep(for: .milliseconds(300))
            close(socket)
            // The server sees the connection end, and keeps nothing of the part.
            let folder = server.configuration.dataDirectory + "/uploads"
            for _ in 0..<100 {
                let parts = ((FileManager.default.enumerator(atPath: folder)?.allObjects as? [String]) ?? []).filter { $0.contains("/part-") }
                if parts.isEmpty { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(((FileManager.default.enumerator(atPath: folder)?.allObjects as? [String]) ?? []).allSatisfy { !$0.contains("/part-") })
            #expect(try await Self.offset(client, key: "k", as: ada, group: group.id) == half)

            let (done, _) = try await Self.put(client, image, half...(image.count - 1), key: "k", as: ada, group: group.id)
            #expect(done.status == .created)
        }
        #expect(try await server.database().counts().photos == 1)
    }

    @Test("Overlapping, skipping, changed or past-the-end ranges and absurd totals are refused and change nothing")
    func badRanges() async throws {
        let server = try { () throws -> TestServer in
            var server = try PhotoRouteTests.server()
            server.configuration.maxUploadBytes = 4 << 20
            return server
        }()
        let image = try Data(contentsOf: URL(fileURLWithPath: try TestImages.solid(width: 640, height: 480, rgb: (7, 77, 177), ext: "jpg")))
        let third = image.count / 3
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            func put(_ range: ClosedRange<Int>?, total: Int? = nil, key: String = "k", query: String = "", header: String? = nil) async throws -> (Int, String?, String?) {
                let (response, body) = try await Self.put(client, image, range, total: total, key: key, as: ada, group: group.id, query: query, body: range == nil ? Data() : nil, header: header)
                return (Int(response.status.code), body["code"] as? String, response.headers[Self.uploadOffset])
            }
            // Nothing is kept for a photo over the limit, nor for a first part that does not start at 0.
            #expect(try await put(0...9, total: 5 << 20).0 == 413)
            #expect(try await put(third...(2 * third)) == (409, "upload-offset-mismatch", "0"))
            #expect(Self.partialFiles(server).isEmpty)

            #expect(try await put(0...(third - 1)).0 == 200)
            let refused: [(ClosedRange<Int>?, Int?, String, String?, Int, String)] = [
                (0...9, nil, "", nil, 409, "upload-offset-mismatch"),                         // sent again
                ((third - 5)...(third + 5), nil, "", nil, 409, "upload-offset-mismatch"),     // overlaps
                ((third + 1)...(2 * third), nil, "", nil, 409, "upload-offset-mismatch"),     // leaves a gap
                (third...(2 * third), image.count + 1, "", nil, 409, "upload-total-changed"),
                (third...(2 * third), nil, "?mission=sharks&task=shark", nil, 422, "idempotency-key-reused"),
                (nil, nil, "", "bytes \(third)-\(image.count)/\(image.count)", 400, "range-past-total"),
                (nil, nil, "", "bytes 5-2/\(image.count)", 400, "invalid-content-range"),
                (nil, nil, "", "bytes=0-9/\(image.count)", 400, "invalid-content-range"),
                (nil, nil, "", "bytes 0-9/*", 400, "invalid-content-range"),
            ]
            for (range, total, query, header, status, code) in refused {
                let (got, gotCode, _) = try await put(range, total: total, query: query, header: header)
                #expect(got == status && gotCode == code, "\(String(describing: range)) \(header ?? "")")
                #expect(try await Self.offset(client, key: "k", as: ada, group: group.id) == third)
            }
            // Asking with no bytes says where it stands; the rest completes it.
            #expect(try await put(nil) == (200, nil, String(third)))
            #expect(try await put(third...(image.count - 1)).0 == 201)
        }
        #expect(try await server.database().counts().photos == 1)
        #expect(Self.partialFiles(server).isEmpty)
    }

    @Test("Uploads in progress are bounded per client address: one machine's uploads that never go on leave room for others")
    func boundPerAddress() async throws {
        let server = try { () throws -> TestServer in
            var server = try PhotoRouteTests.server()
            server.configuration.partialUploadBytesPerAddress = 3_000
            server.configuration.trustForwardedFor = true
            return server
        }()
        try await server.test { client in
            let bytes = Data(repeating: 1, count: 1_000)
            var members: [(TestPlayer, String)] = []
            for name in ["Ada", "Bo", "Cy", "Di"] {
                let player = try await client.newPlayer(name)
                members.append((player, try await client.newGroup(by: player).id))
            }
            // Each in a group of its own, so that only the bound per address can refuse.
            for (player, group) in members.prefix(2) {
                #expect(try await Self.put(client, bytes, 0...0, total: 1_400, key: "a", as: player, group: group, from: "10.0.0.1").0.status == .ok)
            }
            let (full, body) = try await Self.put(client, bytes, 0...0, total: 1_400, key: "a", as: members[2].0, group: members[2].1, from: "10.0.0.1")
            #expect(full.status.code == 507 && body["code"] as? String == "uploads-full")
            #expect(try await Self.put(client, bytes, 0...0, total: 1_400, key: "a", as: members[3].0, group: members[3].1, from: "10.0.0.2").0.status == .ok)
            // What an address started goes on, whatever its room.
            #expect(try await Self.put(client, bytes, 1...99, total: 1_400, key: "a", as: members[0].0, group: members[0].1, from: "10.0.0.1").0.status == .ok)
            // Uploads that have not moved for an hour (their phones went away) leave the address room.
            server.clock.advance(by: 3_601)
            #expect(try await Self.put(client, bytes, 0...0, total: 1_400, key: "a", as: members[2].0, group: members[2].1, from: "10.0.0.1").0.status == .ok)
        }
    }

    @Test("Uploads in progress are bounded per group, and go when untouched past their lifetime")
    func boundsAndExpiry() async throws {
        let server = try { () throws -> TestServer in
            var server = try PhotoRouteTests.server()
            server.configuration.partialUploadBytesPerGroup = 3_000
            server.configuration.partialUploadLifetime = 600
            return server
        }()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)
            let bytes = Data(repeating: 1, count: 1_000)
            #expect(try await Self.put(client, bytes, 0...99, total: 1_400, key: "a", as: ada, group: group.id).0.status == .ok)
            #expect(try await Self.put(client, bytes, 0...99, total: 1_400, key: "b", as: bo, group: group.id).0.status == .ok)
            let (full, fullBody) = try await Self.put(client, bytes, 0...99, total: 1_400, key: "c", as: ada, group: group.id)
            #expect(full.status.code == 507 && fullBody["code"] as? String == "uploads-full")
            #expect(Self.partialFiles(server).count == 2)

            server.clock.advance(by: 601)
            #expect(try await Self.offset(client, key: "a", as: ada, group: group.id) == nil)
            #expect(try await Self.put(client, bytes, 0...99, total: 1_400, key: "c", as: ada, group: group.id).0.status == .ok)
            #expect(Self.partialFiles(server).count == 1)
        }
    }

    @Test("Uploads in progress are bounded by number, from one index: a player's ninth ends their oldest; an address's 201st waits")
    func boundByNumber() async throws {
        let server = try { () throws -> TestServer in
            var server = try PhotoRouteTests.server()
            server.configuration.trustForwardedFor = true
            return server
        }()
        let index = server.configuration.dataDirectory + "/uploads/.index.json"
        @Sendable func listed() throws -> Int { (try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: index))) as? [String: Any])?.count ?? -1 }
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            for key in 0..<8 {
                #expect(try await Self.put(client, Data(), nil, total: 1, key: "k\(key)", as: ada, group: group.id, from: "10.0.0.9").0.status == .ok)
                server.clock.advance(by: 1)
            }
            #expect(try listed() == 8)
            // Her ninth (a phone that lost its keys starts again) ends her oldest.
            #expect(try await Self.put(client, Data(), nil, total: 1, key: "k8", as: ada, group: group.id, from: "10.0.0.9").0.status == .ok)
            #expect(try await Self.offset(client, key: "k0", as: ada, group: group.id) == nil)
            #expect(try await Self.offset(client, key: "k1", as: ada, group: group.id) == 0)
            #expect(try listed() == 8 && Self.partialFiles(server).count == 8)
            // 24 more players behind the same address, eight uploads each: 200 from the address.
            for number in 0..<24 {
                let player = try await client.newPlayer("P\(number)")
                let own = try await client.newGroup(by: player)
                for key in 0..<8 {
                    #expect(try await Self.put(client, Data(), nil, total: 1, key: "k\(key)", as: player, group: own.id, from: "10.0.0.9").0.status == .ok)
                }
            }
            #expect(try listed() == 200)
            let bo = try await client.newPlayer("Bo")
            let bosGroup = try await client.newGroup(by: bo)
            let (refused, problem) = try await Self.put(client, Data(), nil, total: 1, key: "b", as: bo, group: bosGroup.id, from: "10.0.0.9")
            #expect(refused.status == .tooManyRequests && problem["code"] as? String == "too-many-uploads" && refused.headers[.retryAfter] == "30", "\(problem)")
            #expect(try listed() == 200, "the refused start kept nothing")
            // One of them is done (its byte is no photo, so it goes), and the address has room again.
            let (done, _) = try await Self.put(client, Data([0xFF]), 0...0, key: "k1", as: ada, group: group.id, from: "10.0.0.9")
            #expect((400..<500).contains(done.status.code))
            #expect(try listed() == 199)
            #expect(try await Self.put(client, Data(), nil, total: 1, key: "b", as: bo, group: bosGroup.id, from: "10.0.0.9").0.status == .ok)
            #expect(try await Self.put(client, Data(), nil, total: 1, key: "c", as: bo, group: bosGroup.id, from: "10.0.0.10").0.status == .ok)
        }
    }

    @Test("No upload holds a thread that serves photos: while another instance holds the uploads' lock, starts wait, and a thumbnail is served")
    func startsWaitOffTheFileThreads() async throws {
        let server = try { () throws -> TestServer in
            var server = try PhotoRouteTests.server()
            server.configuration.fileWorkers = 1
            return server
        }()
        let image = try TestImages.solid(width: 400, height: 300, rgb: (10, 120, 200), ext: "jpg")
        try await server.test(.live) { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let (_, body) = try await PhotoRouteTests.upload(client, image, as: ada, group: group.id)
            let thumb = try #require((body["photo"] as? [String: Any]).flatMap { $0["urls"] as? [String: String] }?["thumb"])
            // Another instance on the data folder holds the lock every start takes.
            let lock = open(server.configuration.dataDirectory + "/uploads/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            try #require(lock >= 0 && flock(lock, LOCK_EX) == 0)
            // Each request on a connection of its own, as phones send them.
            let port = try #require(client.port)
            let starts = (0..<3).map { number in
                Task { () throws -> Int in
                    let headers: HTTPFields = [
                        .authorization: "Bearer \(ada.token)", .contentRange: "bytes */1000", .contentType: "application/octet-stream",
                    ]
                    return try await LocalHTTP.request(
                        port: port, .put, "/api/v1/groups/\(group.id)/uploads/wait\(number)", headers: headers, body: Data(), timeout: .seconds(300)
                    ).status
                }
            }
            let served = try await within(.seconds(60), "a thumbnail served while uploads wait for their lock") { () -> Int in
                try await LocalHTTP.request(port: port, .get, thumb).status
            }
            #expect(served == 200)
            flock(lock, LOCK_UN)
            close(lock)
            for start in starts { #expect(try await start.value == 200) }
            #expect(Self.partialFiles(server).count == 3)
        }
    }

    @Test("Erasing a player removes the bytes of their uploads not yet complete, and no one else's")
    func erasure() async throws {
        let server = try PhotoRouteTests.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)
            let bytes = Data(repeating: 1, count: 100)
            #expect(try await Self.put(client, bytes, 0...49, key: "a", as: ada, group: group.id).0.status == .ok)
            #expect(try await Self.put(client, bytes, 0...49, key: "b", as: bo, group: group.id).0.status == .ok)
            #expect(Self.partialFiles(server).count == 2)
            let (erased, _) = try await client.send(.delete, "/api/v1/me", headers: bo.auth)
            #expect(erased.status == .noContent)
            #expect(Self.partialFiles(server).count == 1)
            #expect(try await Self.offset(client, key: "a", as: ada, group: group.id) == 50)
        }
    }

    @Test("Strangers to the group cannot send or read its uploads")
    func strangers() async throws {
        let server = try PhotoRouteTests.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), eve = try await client.newPlayer("Eve")
            let group = try await client.newGroup(by: ada)
            let bytes = Data(repeating: 1, count: 100)
            #expect(try await Self.put(client, bytes, 0...49, key: "a", as: ada, group: group.id).0.status == .ok)
            #expect(try await Self.put(client, bytes, 50...99, key: "a", as: eve, group: group.id).0.status == .notFound)
            let (seen, _) = try await client.send(.get, "/api/v1/groups/\(group.id)/uploads/a", headers: eve.auth)
            #expect(seen.status == .notFound)
            #expect(try await Self.offset(client, key: "a", as: ada, group: group.id) == 50)
        }
    }
}
