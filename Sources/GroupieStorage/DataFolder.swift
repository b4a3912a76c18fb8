import Foundation

/// The data folder's layout: the database, the photos, the collages, the uploads in progress,
/// the mission files' versions and the key that signs photo URLs, each named here once. The
/// server and every command ask it for their paths.
public struct DataFolder: Sendable, Hashable {
    /// The folder of `serve` when nothing names one.
    public static let defaultPath = "./data"
    /// The names of its parts, relative to the folder (as a backup holds them).
    public static let databaseName = "groupie.sqlite"
    public static let blobsName = "blobs"
    public static let collagesName = "collages"
    public static let uploadsName = "uploads"
    public static let missionHistoryName = "mission-history"
    public static let signingKeyName = "url-signing.key"

    public var path: String

    public init(_ path: String) {
        self.path = path
    }

    /// The SQLite database, when the server keeps its state in SQLite.
    public var database: String { path + "/" + Self.databaseName }
    /// The photos' files, by their SHA-256.
    public var blobs: String { path + "/" + Self.blobsName }
    /// The collages drawn, kept by their content.
    public var collages: String { path + "/" + Self.collagesName }
    /// Resumable uploads in progress.
    public var uploads: String { path + "/" + Self.uploadsName }
    /// Every venue's mission-file versions.
    public var missionHistory: String { path + "/" + Self.missionHistoryName }
    /// The key that signs photo URLs, shared by the instances of one data folder.
    public var signingKey: String { path + "/" + Self.signingKeyName }

    /// The folder a command works on: `option` (`--data`), else `GROUPIE_DATA`, else the
    /// default, as `serve` chooses it. An empty value counts as none.
    public static func chosen(_ option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> DataFolder {
        DataFolder([option, environment["GROUPIE_DATA"]].compactMap { $0 }.first { !$0.isEmpty } ?? defaultPath)
    }
}
