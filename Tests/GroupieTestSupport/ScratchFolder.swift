import Foundation

/// A new empty folder under the system's temporary folder, for one test.
public enum ScratchFolder {
    public static func make(_ prefix: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
