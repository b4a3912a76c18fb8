import Foundation
import GroupieCore
import Testing
import Yams

/// The kinds of group event are declared once, in Core; the API document and the web client
/// must name exactly those.
@Suite("Event kinds")
struct EventKindTests {
    static let kinds = Set(GroupEventKind.allCases.map(\.rawValue))

    func text(_ path: String) throws -> String {
        try String(contentsOf: TestServer.repository.appendingPathComponent(path), encoding: .utf8)
    }

    @Test("the API document describes exactly the event kinds, each with its data")
    func document() throws {
        let document = try #require(try Yams.load(yaml: try text("Sources/GroupieServer/Resources/openapi.yaml")) as? [String: Any])
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let groupEvent = try #require(schemas["GroupEvent"] as? [String: Any])
        let mapping = try #require((groupEvent["discriminator"] as? [String: Any])?["mapping"] as? [String: String])
        // `resync` is the stream's control event, not an event of the group.
        #expect(Set(mapping.keys).subtracting(["resync"]) == Self.kinds)
        let table = try text("Sources/GroupieServer/Resources/openapi.yaml")
        for kind in Self.kinds { #expect(table.contains("| `\(kind)` |"), "the stream's table lacks \(kind)") }
    }

    @Test("the web client listens to exactly the event kinds")
    func client() throws {
        let live = try text("assets/web/live.js")
        let declaration = try #require(live.firstMatch(of: /const TYPES = \[([^\]]*)\]/)?.output.1)
        let names = declaration.matches(of: /'([a-z-]+)'/).map { String($0.output.1) }
        #expect(Set(names) == Self.kinds)
        #expect(names.count == Self.kinds.count)
    }
}
