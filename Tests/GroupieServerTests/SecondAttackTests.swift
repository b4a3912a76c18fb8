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
