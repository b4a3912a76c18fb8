import Foundation
import GroupieContent
import Testing

@Suite("Venues the missions folder declares")
struct DeclaredVenueTests {
    @Test("Each file's venue id, broken files too; a file without an id, or with an id that cannot be one, declares none")
    func declared() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-declared-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let files = [
            "broken.yaml": "id: sciense-centre   # misspelt on purpose\ntimezone: Berlin\nmissions: []\n",
            "quoted.yaml": "# a venue\nid: \"planetarium\"\nname: x\n",
            "nested.yaml": "name: x\nmissions:\n  - id: sharks\n",
            "bad-id.yaml": "id: Not An Id\n",
        ]
        for (name, text) in files { try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8) }
        let declared = try MissionFolder(directory: folder, assetsDirectory: nil).declaredVenueIds()
        #expect(declared == ["sciense-centre": folder + "/broken.yaml", "planetarium": folder + "/quoted.yaml"])
    }

    @Test("The sample venues declare themselves")
    func samples() throws {
        let declared = try MissionFolder(directory: Fixtures.missions, assetsDirectory: Fixtures.assets).declaredVenueIds()
        #expect(declared.keys.sorted() == ["art-museum", "science-centre"])
    }
}
