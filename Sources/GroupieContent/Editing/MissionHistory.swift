import Foundation
import GroupieCore

/// Every version of a venue's mission file saved from the console, with who saved it and when,
/// kept in the data folder (`mission-history/<venue>/`), not beside the file: the missions
/// folder may be a git working copy, and its history is the museum's own.
public struct MissionHistory: Sendable {
    public struct Version: Codable, Sendable, Equatable {
        /// 1, 2, 3… in the order they were saved.
        public var number: Int
        public var savedAt: Date
        /// Who saved it; nil for the file as it was found on disk before its first save here.
        public var staffEmail: String?
        /// SHA-256 of the text, hex.
        public var hash: String
        public var bytes: Int
        /// What the save was, in words ("restores version 3"), when more than an edit.
        public var note: String?
    }

    public let directory: String

    public init(dataDirectory: String) {
        directory = dataDirectory + "/mission-history"
    }

    /// The venue's folder; nil for an id that is not a venue id (so never `..` or a slash).
    func folder(_ venueId: String) -> String? {
        Identifier.isValid(venueId) ? directory + "/" + venueId : nil
    }

    /// The venue's versions, newest first.
    public func versions(venueId: String) throws -> [Version] {
        guard let folder = folder(venueId), FileManager.default.fileExists(atPath: folder) else { return [] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }.compactMap { name in
            try? decoder.decode(Version.self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
        }.sorted { $0.number > $1.number }
    }

    public func version(venueId: String, number: Int) throws -> Version? {
        try versions(venueId: venueId).first { $0.number == number }
    }

    /// The text of version `number`; nil when there is none.
    public func text(venueId: String, number: Int) throws -> String? {
        guard let folder = folder(venueId), number > 0 else { return nil }
        let path = folder + "/" + Self.name(number) + ".yaml"
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
    }

    /// Keeps `text` as the venue's next version: the text first, then its record, each written
    /// atomically, so that a version listed always has its text. Blocking.
    @discardableResult
    public func record(venueId: String, text: String, staffEmail: String?, at date: Date, note: String?) throws -> Version {
        guard let folder = folder(venueId) else { throw CocoaError(.fileWriteInvalidFileName) }
        // The data folder's own: readable by the service user only.
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let bytes = Data(text.utf8)
        let number = (try versions(venueId: venueId).first?.number ?? 0) + 1
        let version = Version(number: number, savedAt: date, staffEmail: staffEmail, hash: MissionFileReader.hash(bytes), bytes: bytes.count, note: note)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        try MissionFileWriter.writeAtomically(bytes, to: folder + "/" + Self.name(number) + ".yaml", mode: 0o600)
        try MissionFileWriter.writeAtomically(try encoder.encode(version), to: folder + "/" + Self.name(number) + ".json", mode: 0o600)
        return version
    }

    /// Runs `body` holding the history's lock (`flock` on `mission-history/.lock`), so that
    /// saves from several instances on one data folder check the file on disk and write it one
    /// at a time. Blocking.
    public func exclusively<T>(_ body: () throws -> T) throws -> T {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let descriptor = open(directory + "/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    static func name(_ number: Int) -> String {
        String(format: "%06d", number)
    }
}
