import Foundation
import GroupieTestSupport
import HTTPTypes
import Testing

@testable import GroupieServer

/// Downloads whose clients never read, against a `groupie serve` of its own, whose memory is
/// read from `/proc` (the tests' own process runs every other suite beside this one).
@Suite("Second attack: unread downloads")
struct UnreadDownloadTests {
    /// The server's resident memory, in MiB.
    static func residentMiB(_ pid: Int32) throws -> Double {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        let kilobytes = try #require(Double(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        return kilobytes / 1024
    }

    /// A photo of noise, which JPEG cannot make small: about 8 MB.
    static func largePhoto() throws -> String {
        let base = TestImages.folder + "/noise-\(UUID().uuidString)"
        try TestImages.vips(["gaussnoise", base + "-n.v", "3600", "2700", "--sigma", "70", "--mean", "128"])
        try TestImages.vips(["cast", base + "-n.v", base + "-c.v", "uchar"])
        try TestImages.vips(["bandjoin", "\(base)-c.v \(base)-c.v \(base)-c.v", base + "-rgb.v"])
        try TestImages.vips(["jpegsave", base + "-rgb.v", base + ".jpg", "--Q", "95"])
        return base + ".jpg"
    }

    static func send(_ method: String, port: Int, _ path: String, token: String, body: Data? = nil, contentType: String? = nil) async throws -> (Int, Data) {
        var headers: HTTPFields = [.authorization: "Bearer \(token)"]
        if let contentType { headers[.contentType] = contentType }
        let answer = try await LocalHTTP.request(port: port, HTTPRequest.Method(method)!, path, headers: headers, body: body)
        return (answer.status, answer.body)
    }

    /// The kernel's state of the server's side of the TCP connection from `clientPort` to
    /// `serverPort` on 127.0.0.1 (`/proc/net/tcp`: 1 established, 4 closing with data unsent),
    /// or nil once it is gone.
    static func serverSideState(serverPort: Int, clientPort: Int) throws -> Int? {
        // Read to its end: the kernel hands the table out a page at a time.
        let file = try #require(FileHandle(forReadingAtPath: "/proc/net/tcp"))
        defer { try? file.close() }
        let table = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        func address(_ port: Int) -> String {
            let hex = String(port, radix: 16, uppercase: true)
            return "0100007F:" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        let local = address(serverPort), remote = address(clientPort)
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count > 3, fields[1] == local, fields[2] == remote { return Int(fields[3], radix: 16) }
        }
        return nil
    }

    /// A `groupie serve` of the test's own with `settings`, once it answers, and Ada's group at
    /// the art museum on it.
    static func serverWithGroup(settings: [String] = []) async throws -> (process: ChildProcess, port: Int, token: String, groupId: String) {
        let (process, port) = try CommandLineTests.start(logLevel: "error", settings: settings)
        do {
            try await eventually(.seconds(120), "the server's start", every: .milliseconds(100)) {
                guard process.isRunning else { throw TestFailure("the server ended as it started") }
                return await LocalHTTP.status(port: port, "/healthz") != nil
            }
            let token = try #require(try await CommandLineTests.post(port: port, "/api/v1/players", #"{"name": "Ada"}"#)["token"] as? String)
            let group = try #require(
                try await CommandLineTests.post(port: port, "/api/v1/groups", #"{"venueId": "art-museum"}"#, token: token)["group"] as? [String: Any]
            )
            return (process, port, token, try #require(group["id"] as? String))
        } catch {
            process.terminate()
            throw error
        }
    }

    @Test("A client that stops reading an album.zip is closed by the server after the body timeout, and gets no more of it")
    func stoppedReaderClosed() async throws {
        let (process, port, token, groupId) = try await Self.serverWithGroup(settings: ["--body-timeout", "5"])
        defer { if process.isRunning { process.terminate() } }
        let photo = try Data(contentsOf: URL(fileURLWithPath: try Self.largePhoto()))
        for _ in 0..<2 {
            #expect(try await Self.send("POST", port: port, "/api/v1/groups/\(groupId)/photos", token: token, body: photo, contentType: "image/jpeg").0 == 201)
        }
        let (_, tokenBody) = try await Self.send("POST", port: port, "/api/v1/groups/\(groupId)/events/token", token: token)
        let streamToken = try #require((try JSONSerialization.jsonObject(with: tokenBody) as? [String: Any])?["token"] as? String)

        let socket = try EventStreamReader.connect(port: port)
        defer { close(socket) }
        var size: Int32 = 4096
        setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in(), length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        let clientPort = Int(UInt16(bigEndian: address.sin_port))
        let request = "GET /api/v1/groups/\(groupId)/album.zip?token=\(streamToken) HTTP/1.1\r\nHost: localhost\r\n\r\n"
        _ = request.withCString { Glibc.send(socket, $0, strlen($0), 0) }
        try await eventually(.seconds(120), "the answer started", every: .milliseconds(50)) {
            var waiting: Int32 = 0
            return withUnsafeMutablePointer(to: &waiting) { ioctl(socket, UInt(FIONREAD), $0) } == 0 && waiting > 0
        }
        let first = try Self.serverSideState(serverPort: port, clientPort: clientPort)
        #expect(first == 1, "open while the client has read nothing for less than 5 s: \(String(describing: first)), ports \(port) and \(clientPort)")
        // The server's side of the connection leaves ESTABLISHED once the server closes it.
        try await eventually(.seconds(120), "the server closing the connection", every: .milliseconds(50)) {
            try Self.serverSideState(serverPort: port, clientPort: clientPort) != 1
        }
        // The client reads again, with room for what the server's kernel still holds: its 4 KB
        // window would drain megabytes a few kilobytes per wake-up of a busy machine.
        var room: Int32 = 8 << 20
        setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &room, socklen_t(MemoryLayout<Int32>.size))
        // What the kernels held is all that comes: far less than the ZIP of two 8 MB photos. It
        // ends with the connection, or, when the server's kernel let go of its side (a closed
        // socket whose client never opened its window again), with nothing more to read.
        let received = try await within(.seconds(120), "the rest of what was sent, to the connection's end") { () -> Int in
            var total = 0, chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = recv(socket, &chunk, chunk.count, Int32(MSG_DONTWAIT))
                if count > 0 {
                    total += count
                    continue
                }
                if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { return total }
                if try Self.serverSideState(serverPort: port, clientPort: clientPort) == nil { return total }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        #expect(received < 2 * photo.count, "\(received) bytes of a ZIP of \(2 * photo.count) bytes of photos")
        #expect(process.isRunning)
    }

    @Test("Fifty album.zip and fifty original requests that never read hold what was read ahead of their sockets, not their files")
    func unreadDownloads() async throws {
        let (process, port, token, groupId) = try await Self.serverWithGroup()
        defer { if process.isRunning { process.terminate() } }
        let photo = try Data(contentsOf: URL(fileURLWithPath: try Self.largePhoto()))
        #expect(photo.count > 4_000_000, "\(photo.count) bytes")
        var photoIds: [String] = []
        for _ in 0..<4 {
            let (status, body) = try await Self.send("POST", port: port, "/api/v1/groups/\(groupId)/photos", token: token, body: photo, contentType: "image/jpeg")
            #expect(status == 201)
            let answer = try JSONSerialization.jsonObject(with: body) as? [String: Any]
            photoIds.append(try #require((answer?["photo"] as? [String: Any])?["id"] as? String))
        }
        let (_, tokenBody) = try await Self.send("POST", port: port, "/api/v1/groups/\(groupId)/events/token", token: token)
        let streamToken = try #require((try JSONSerialization.jsonObject(with: tokenBody) as? [String: Any])?["token"] as? String)

        let before = try Self.residentMiB(process.processIdentifier)
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        for index in 0..<100 {
            let socket = try EventStreamReader.connect(port: port)
            // The smallest receive buffer the kernel allows: what is not read stays with the server.
            var size: Int32 = 4096
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            let path = index % 2 == 0
                ? "/api/v1/groups/\(groupId)/album.zip?token=\(streamToken)"
                : "/api/v1/photos/\(photoIds[index % photoIds.count])/original"
            let request = "GET \(path) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n\r\n"
            _ = request.withCString { Glibc.send(socket, $0, strlen($0), 0) }
            sockets.append(socket)
        }
        // Every answer has started: its socket holds bytes of it, as many as the socket takes.
        try await eventually(.seconds(120), "every answer started", every: .milliseconds(50)) {
            sockets.allSatisfy { socket in
                var waiting: Int32 = 0
                let answered = withUnsafeMutablePointer(to: &waiting) { ioctl(socket, UInt(FIONREAD), $0) }
                return answered == 0 && waiting > 0
            }
        }
        // And the server has read ahead what it will: its memory stops growing.
        var during = try Self.residentMiB(process.processIdentifier)
        try await eventually(.seconds(120), "the server's memory settled", every: .milliseconds(500)) {
            let now = try Self.residentMiB(process.processIdentifier)
            defer { during = max(during, now) }
            return now <= during + 1
        }
        // Before, each answer held its whole file (38 MiB a ZIP of four, 9.5 MiB an original):
        // 2.3 GiB in all. Now what is read ahead of the socket, which does not grow with the
        // file: about 1 MiB an answer, and at most a few with the allocator's own slack.
        #expect(during - before < 100 * 4, "the server grew from \(Int(before)) to \(Int(during)) MiB for 100 answers")
        // Other requests are served meanwhile.
        #expect(try await Self.send("GET", port: port, "/api/v1/groups/\(groupId)", token: token).0 == 200)
    }

    @Test("Streamed answers beyond the bound in all are refused at once; a place comes back when its answer goes")
    func boundInAll() throws {
        let downloads = StreamedDownloads(limit: 2)
        var places = [try downloads.take(), try downloads.take()]
        #expect(throws: Problem.self) { try downloads.take() }
        #expect(downloads.inFlight == 2)
        places.removeLast()
        #expect(downloads.inFlight == 1)
        places.append(try downloads.take())
        #expect(downloads.inFlight == 2)
    }
}
