import Foundation
@testable import GroupieServer
import Hummingbird
import HummingbirdTesting
import Testing

/// The request metrics on `/metrics`. The Prometheus registry is the process's, shared by
/// every suite running at once, so each check compares a series before and after this test's
/// own requests, and other tests' requests can only add to it.
@Suite("Request metrics")
struct RequestMetricsTests {
    @Test("Short answers, long answers and refusals are each counted, with a duration, at their route and status", arguments: [TestServer.Setup.live, .router])
    func counted(_ setup: TestServer.Setup) async throws {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        try await server.test(setup) { client in
            let short = #"http_route="/api/v1/venues",http_request_method="GET",http_response_status_code="200""#
            let long = #"http_route="/api/v1/openapi.yaml",http_request_method="GET",http_response_status_code="200""#
            let refused = #"http_route="/api/v1/me",http_request_method="GET",http_response_status_code="401""#
            let before = try await Self.samples(client)
            for _ in 0..<3 {
                // Counted when the route returns it: a JSON document well under the limit.
                let (venues, _) = try await client.json("/api/v1/venues")
                #expect(venues.status == .ok)
                #expect(venues.body.readableBytes < RequestMetricsMiddleware<GroupieRequestContext>.smallAnswer)
                // Counted once written: longer than the limit.
                try await client.execute(uri: "/api/v1/openapi.yaml", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.body.readableBytes > RequestMetricsMiddleware<GroupieRequestContext>.smallAnswer)
                }
                #expect(try await client.execute(uri: "/api/v1/me", method: .get) { $0.status } == .unauthorized)
            }
            let after = try await Self.samples(client)
            for series in [short, long, refused] {
                for name in ["hb_requests", "http_server_request_duration_count"] {
                    let key = "\(name){\(series)}"
                    #expect((after[key] ?? 0) - (before[key] ?? 0) >= 3, "\(key)")
                }
                let sum = "http_server_request_duration_sum{\(series)}"
                #expect((after[sum] ?? 0) > (before[sum] ?? 0), "\(sum)")
            }
            // The refusal is counted as an error of its route; the routes that answered 200 have no
            // error series at all (nothing in the suite makes those two routes fail).
            let refusedError = #"hb_request_errors{http_route="/api/v1/me",http_request_method="GET",error_type="401"}"#
            #expect((after[refusedError] ?? 0) - (before[refusedError] ?? 0) >= 3, "\(refusedError)")
            for route in ["/api/v1/venues", "/api/v1/openapi.yaml"] {
                let errors = after.keys.filter { $0.hasPrefix("hb_request_errors{") && $0.contains(#"http_route="\#(route)""#) }
                #expect(errors.isEmpty, "\(errors)")
            }
        }
    }

    /// Every sample of `/metrics` without a histogram bucket, by name and labels.
    static func samples(_ client: some TestClientProtocol) async throws -> [String: Double] {
        try await client.execute(uri: "/metrics", method: .get) { response in
            var samples: [String: Double] = [:]
            for line in String(buffer: response.body).split(separator: "\n") where !line.hasPrefix("#") && !line.contains("_bucket") {
                guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
                samples[String(line[..<space])] = value
            }
            return samples
        }
    }
}
