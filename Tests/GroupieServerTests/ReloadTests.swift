import Foundation
import GroupieCore
@testable import GroupieServer
import HummingbirdTesting
import Testing

@Suite("Mission files while the server runs")
struct ReloadTests {
    /// Asks until `condition` holds or the time is up; returns how long it took. The servers
    /// under test look at their folder every 100 ms, so a change shows within a few hundred;
    /// the 10 s bound leaves room for a machine loaded by the heavy tests (50 concurrent
    /// 12-megapixel uploads) running beside this one.
    static func eventually(_ condition: () async throws -> Bool) async throws -> Duration? {
        let clock = ContinuousClock()
        let start = clock.now
        // Generous: a loaded machine (the whole suite runs in parallel) is slow, not wrong.
        while clock.now - start < .seconds(120) {
            if try await condition() { return clock.now - start }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    @Test("A changed valid file goes live; a broken one keeps the last good version")
    func editAndBreak() async throws {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium(title: "Hajar"))
        try await StaffConsoleTests.addStaff(server, "editor@aquarium.example", .editor, venues: ["aquarium"])
        try await server.test { client in
            func title() async throws -> String? {
                let (_, venue) = try await client.json("/api/v1/venues/aquarium?lang=sv")
                return ((venue["missions"] as? [[String: Any]])?.first?["title"]) as? String
            }
            #expect(try await title() == "Hajar")

            try server.write("aquarium.yaml", TestServer.aquarium(title: "Hajarna i tunneln"))
            #expect(try await Self.eventually { try await title() == "Hajarna i tunneln" } != nil, "the edit did not go live")

            // The broken file is read (its problem is reported with its place) and not served.
            let editor = try #require(try await StaffConsoleTests.signIn(client, "editor@aquarium.example").1)
            try server.write("aquarium.yaml", TestServer.aquarium(title: "Trasig") + "\n  - id: Broken Mission\n")
            let reported = try await Self.eventually {
                try await editor.page(client, "/staff/venues/aquarium/missions").1.contains("aquarium.yaml:")
            }
            #expect(reported != nil, "the broken file's problem was never reported")
            #expect(try await title() == "Hajarna i tunneln", "a broken file keeps the last good version")

            try server.write("aquarium.yaml", TestServer.aquarium(title: "Lagad"))
            #expect(try await Self.eventually { try await title() == "Lagad" } != nil)
        }
    }

    @Test("A new file adds a venue; a deleted file withdraws it; putting it back brings it back")
    func addAndDelete() async throws {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        try await server.test { client in
            try server.write("rainforest.yaml", TestServer.aquarium(id: "rainforest"))
            #expect(try await Self.eventually {
                try await client.json("/api/v1/venues/rainforest").0.status == .ok
            } != nil)

            try server.remove("rainforest.yaml")
            #expect(try await Self.eventually {
                try await client.json("/api/v1/venues/rainforest").0.status == .notFound
            } != nil)
            let (_, list) = try await client.json("/api/v1/venues")
            #expect((list["venues"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["aquarium"])

            try server.write("rainforest.yaml", TestServer.aquarium(id: "rainforest"))
            #expect(try await Self.eventually {
                try await client.json("/api/v1/venues/rainforest").0.status == .ok
            } != nil)
        }
    }

    @Test("A venue refused for a missing icon is served once the icon is copied in")
    func assetArrives() async throws {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium().replacingOccurrences(of: "icons/fish.svg", with: "icons/ray.svg"))
        try await server.test { client in
            #expect(try await client.json("/api/v1/venues/aquarium").0.status == .notFound)
            try Data("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8).write(to: URL(fileURLWithPath: server.assets + "/icons/ray.svg"))
            #expect(try await Self.eventually {
                try await client.json("/api/v1/venues/aquarium").0.status == .ok
            } != nil)
        }
    }

    @Test("At start, broken files are reported and the valid venues are served")
    func brokenAtStart() async throws {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        try server.write("broken.yaml", "id: broken\nname: [")
        try await server.test { client in
            let (_, list) = try await client.json("/api/v1/venues")
            #expect((list["venues"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["aquarium"])
            let (health, body) = try await client.json("/healthz")
            #expect(health.status == .ok)
            #expect(body["venues"] as? Int == 1)
        }
    }
}

/// The reload's time bound, which `make test` runs on its own after the rest of the suite: with
/// every other test running beside it on two cores, any one step can wait seconds for a core.
@Suite("Mission file reload timing")
struct ReloadTimingTests {
    @Test("A changed valid file is live within 2 seconds")
    func liveWithinTwoSeconds() async throws {
        var configured = try TestServer()
        // The default look at the folder, twice a second, as docs/operating.md promises it.
        configured.configuration.missionReloadInterval = ServerConfiguration().missionReloadInterval
        let server = configured
        try server.write("aquarium.yaml", TestServer.aquarium(title: "Hajar"))
        try await server.test { client in
            func title() async throws -> String? {
                let (_, venue) = try await client.json("/api/v1/venues/aquarium?lang=sv")
                return ((venue["missions"] as? [[String: Any]])?.first?["title"]) as? String
            }
            #expect(try await title() == "Hajar")
            for edit in 1...3 {
                let edited = "Hajarna i tunneln \(edit)"
                try server.write("aquarium.yaml", TestServer.aquarium(title: edited))
                let took = try #require(try await ReloadTests.eventually { try await title() == edited }, "edit \(edit) did not go live")
                #expect(took < .seconds(2), "edit \(edit) went live after \(took)")
            }
        }
    }
}
