import Foundation

/// Folders of the repository that tests read: the sample venues and the broken corpus.
enum Fixtures {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let missions = repository.appendingPathComponent("missions").path
    static let assets = repository.appendingPathComponent("assets").path
    static let broken = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("BrokenMissions").path
    static let brokenAssets = broken + "/assets"

    static func temporaryFolder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
