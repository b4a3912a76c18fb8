import Foundation
import GroupieServer
import Testing

/// A body that trickles in, each pause under the body timeout, is closed once it has taken the
/// client longer than that timeout at less than the minimum rate; a slow body that keeps a
/// usable pace is read to its end.
@Suite("Slow bodies")
struct SlowBodyTests {
    /// Sends `head`, then `piece` every `every` seconds until the server closes the connection
    /// or answers, or `limit` seconds pass: the seconds it took, and whether an answer came.
    static func trickle(port: Int, head: String, piece: String, every: Double, limit: Double) async throws -> (seconds: Double, answered: Bool) {
        let socket = try EventStreamReader.connect(port: port)
        defer { close(socket) }
        let started = Date()
        _ = head.withCString { send(socket, $0, strlen($0), 0) }
        var chunk = [UInt8](repeating: 0, count: 4096)
        var next = Date()
        while Date().timeIntervalSince(started) < limit {
            let count = recv(socket, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            if count > 0 { return (Date().timeIntervalSince(started), true) }
            if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { return (Date().timeIntervalSince(started), false) }
            if Date() >= next {
                _ = piece.withCString { send(socket, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                next = Date().addingTimeInterval(every)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return (limit, false)
    }

    @Test("A byte now and then is closed after the body timeout; a slow body at a usable pace is answered")
    func trickleClosed() async throws {
        var server = try HardeningTests.server()
        // Margins wide enough for a loaded machine: the trickle is 30 times under the minimum, the
        // slow body 30 times over it, and its pauses a twentieth of the body timeout.
        server.configuration.timeouts = ConnectionTimeouts(header: .seconds(10), body: .seconds(5), idle: .seconds(10), minimumBodyRate: 64)
        try await server.test(.live) { client in
            let port = try #require(client.port)
            // A byte every 0.5 s: never a pause of five seconds, but 2 bytes a second.
            let head = "POST /api/v1/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n"
            let slow = try await Self.trickle(port: port, head: head, piece: " ", every: 0.5, limit: 60)
            #expect(!slow.answered && slow.seconds >= 4.9 && slow.seconds < 60, "closed, after \(slow.seconds) s")
            // 50,000 bytes at once, then a byte every 0.5 s: the whole body's average would stay
            // over the minimum for 13 minutes; a window of the body timeout falls under it at once.
            let fastThenSlow = try await Self.trickle(port: port, head: head + String(repeating: " ", count: 50_000), piece: " ", every: 0.5, limit: 60)
            #expect(!fastThenSlow.answered && fastThenSlow.seconds >= 4.9 && fastThenSlow.seconds < 60, "closed, after \(fastThenSlow.seconds) s")

            // 2 KiB a second, of a body of 6 KiB: slow, but well over the minimum, and answered.
            let body = #"{"name": "Ada"}"# + String(repeating: " ", count: 6 * 1024 - 15)
            let pieces = stride(from: 0, to: body.count, by: 512).map { String(body.dropFirst($0).prefix(512)) }
            let socket = try EventStreamReader.connect(port: port)
            defer { close(socket) }
            let request = "POST /api/v1/players HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
            _ = request.withCString { send(socket, $0, strlen($0), 0) }
            for piece in pieces {
                _ = piece.withCString { send(socket, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                try await Task.sleep(for: .milliseconds(250))
            }
            var received: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            let started = Date()
            while Date().timeIntervalSince(started) < 10 {
                let count = recv(socket, &chunk, chunk.count, Int32(MSG_DONTWAIT))
                if count > 0 { received += chunk[0..<count]; continue }
                if count == 0 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(String(decoding: received, as: UTF8.self).hasPrefix("HTTP/1.1 201"), "\(String(decoding: received.prefix(200), as: UTF8.self))")
        }
    }
}
