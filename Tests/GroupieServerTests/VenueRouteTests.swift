import Foundation
import GroupieServer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Venue routes")
struct VenueRouteTests {
    @Test("The venue list names each venue in the language asked for")
    func list() async throws {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        try await server.test { client in
            let (response, body) = try await client.json("/api/v1/venues?lang=en")
            #expect(response.status == .ok)
            let venues = try #require(body["venues"] as? [[String: Any]])
            try #require(venues.count == 1)
            #expect(venues[0]["name"] as? String == "The Aquarium")
            #expect(venues[0]["missionCount"] as? Int == 2)
        }
    }

    @Test("A venue comes in ?lang=, else Accept-Language, else English, else its first language, text by text")
    func languages() async throws {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        try await server.test { client in
            let (_, english) = try await client.json("/api/v1/venues/aquarium?lang=en", headers: [.acceptLanguage: "sv"])
            #expect(english["language"] as? String == "en")
            #expect(english["name"] as? String == "The Aquarium")
            let missions = try #require(english["missions"] as? [[String: Any]])
            #expect(missions.map { $0["id"] as? String } == ["sharks", "rays"])
            #expect(missions[0]["title"] as? String == "Sharks")
            #expect(missions[0]["iconUrl"] as? String == "/assets/icons/fish.svg")
            #expect(missions[1]["after"] as? [String] == ["sharks"])
            #expect(missions[1]["style"] as? String == "strip")
            let tasks = try #require(missions[0]["tasks"] as? [[String: Any]])
            #expect(tasks[0]["prompt"] as? String == "Photograph a shark")
            #expect(tasks[0]["hint"] as? String == "Titta i tunneln / Look in the tunnel")
            #expect(tasks[0]["camera"] as? String == "back")
            #expect(tasks[0]["framing"] as? String == "focus")

            let (_, accepted) = try await client.json("/api/v1/venues/aquarium", headers: [.acceptLanguage: "en-GB,en;q=0.9"])
            #expect(accepted["language"] as? String == "en")
            // A German phone in a Swedish venue reads English, which it more likely knows.
            let (_, fallback) = try await client.json("/api/v1/venues/aquarium?lang=xx", headers: [.acceptLanguage: "de"])
            #expect(fallback["language"] as? String == "en")
            #expect(fallback["name"] as? String == "The Aquarium")
            let (_, unasked) = try await client.json("/api/v1/venues/aquarium")
            #expect(unasked["language"] as? String == "sv")
            #expect(unasked["name"] as? String == "Akvariet")
        }
    }

    @Test("A strong ETag per file content and language; 304 on If-None-Match")
    func etag() async throws {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        try await server.test { client in
            let (first, _) = try await client.json("/api/v1/venues/aquarium?lang=sv")
            let etag = try #require(first.headers[.eTag])
            #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))
            #expect(first.headers[.vary] == "Accept-Language")
            let (english, _) = try await client.json("/api/v1/venues/aquarium?lang=en")
            #expect(english.headers[.eTag] != etag)
            try await client.execute(uri: "/api/v1/venues/aquarium?lang=sv", method: .get, headers: [.ifNoneMatch: etag]) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
            }
            try await client.execute(uri: "/api/v1/venues/aquarium?lang=sv", method: .get, headers: [.ifNoneMatch: "\"stale\""]) { response in
                #expect(response.status == .ok)
            }
            let (list, _) = try await client.json("/api/v1/venues")
            let listTag = try #require(list.headers[.eTag])
            try await client.execute(uri: "/api/v1/venues", method: .get, headers: [.ifNoneMatch: listTag]) { response in
                #expect(response.status == .notModified)
            }
        }
    }

    @Test("An unknown venue is a 404 problem document with a stable code")
    func unknownVenue() async throws {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        try await server.test { client in
            let (response, problem) = try await client.json("/api/v1/venues/planetarium")
            #expect(response.status == .notFound)
            #expect(response.headers[.contentType] == "application/problem+json")
            #expect(problem["code"] as? String == "venue-not-found")
            #expect(problem["status"] as? Int == 404)
            #expect(problem["title"] as? String == "Not Found")
            #expect(problem["requestId"] as? String == response.headers[HTTPField.Name("X-Request-Id")!])
        }
    }

    @Test("An unknown route is a problem document too")
    func unknownRoute() async throws {
        let server = try TestServer()
        try await server.test { client in
            let (response, problem) = try await client.json("/api/v1/nothing-here")
            #expect(response.status == .notFound)
            #expect(problem["code"] as? String == "not-found")
        }
    }

    @Test("Icons named by venues are served from the assets folder, and nothing outside it")
    func assets() async throws {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        try await server.test(.live) { client in
            try await client.execute(uri: "/assets/icons/fish.svg", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("image/svg+xml") == true)
            }
            try await client.execute(uri: "/assets/../missions/aquarium.yaml", method: .get) { response in
                #expect(response.status == .notFound || response.status == .badRequest)
            }
            try await client.execute(uri: "/assets/%2e%2e/missions/aquarium.yaml", method: .get) { response in
                #expect(response.status != .ok)
            }
        }
    }

    @Test("The sample venues are served")
    func samples() async throws {
        let server = try TestServer.samples()
        try await server.test { client in
            let (_, body) = try await client.json("/api/v1/venues")
            let ids = (body["venues"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(ids.contains("science-centre"))
            #expect(ids.contains("art-museum"))
            let (response, venue) = try await client.json("/api/v1/venues/science-centre?lang=en")
            #expect(response.status == .ok)
            #expect((venue["missions"] as? [Any])?.count == 9)
        }
    }
}
