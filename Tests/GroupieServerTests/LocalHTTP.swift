import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore

/// Requests to a server a test started on 127.0.0.1, each on a connection of its own, through
/// NIO as the server itself runs. Not Foundation's `URLSession`: on Linux it drives curl's
/// sockets with libdispatch sources, and their teardown beside a whole suite's load once
/// crashed the test process ("Source finalized twice" in libdispatch's manager thread).
enum LocalHTTP {
    struct Answer: Sendable {
        var status: Int
        var body: Data
    }

    /// `timeout`: the longest the whole request may take before it fails.
    static func request(
        port: Int, _ method: HTTPRequest.Method, _ path: String, headers: HTTPFields = [:], body: Data? = nil, timeout: Duration = .seconds(120)
    ) async throws -> Answer {
        try await TestClient.withClient(host: "127.0.0.1", port: port, configuration: .init(timeout: timeout)) { client in
            let request = TestClient.Request(path, method: method, authority: "127.0.0.1:\(port)", headers: headers, body: body.map { ByteBuffer(bytes: $0) })
            let response = try await client.execute(request)
            return Answer(status: Int(response.status.code), body: response.body.map { Data(buffer: $0) } ?? Data())
        }
    }

    /// The status of a GET, or nil while nothing answers.
    static func status(port: Int, _ path: String) async -> Int? {
        try? await request(port: port, .get, path, timeout: .seconds(30)).status
    }
}
