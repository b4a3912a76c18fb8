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

    /// How many versions a venue keeps, and how many bytes of text in all: the oldest go first
    /// (the newest two always stay), and the versions page says how many went.
    public static let keptVersions = 100
    public static let keptBytes = 20 * 1_048_576

    /// The history kept in `directory`, the data folder's `mission-history`.
    public init(directory: String) {
        self.directory = directory
    }

    /// The venue's index: every version kept, in one file, so that a listing or a save reads one
    /// file, not a record per version.
    struct Index: Codable {
        var versions: [Version]
        /// How many of the oldest versions were removed to stay within the bounds.
        var pruned: Int
    }

    /// The venue's folder; nil for an id that is not a venue id (so never `..` or a slash).
    func folder(_ venueId: String) -> String? {
        Identifier.isValid(venueId) ? directory + "/" + venueId : nil
    }

    /// The venue's versions, newest first.
    public func versions(venueId: String) throws -> [Version] {
        try index(venueId: venueId).versions.sorted { $0.number > $1.number }
    }

    /// How many of the venue's oldest versions were removed to keep within the bounds.
    public func pruned(venueId: String) throws -> Int {
        try index(venueId: venueId).pruned
    }

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    /// The index, or (a history an earlier Groupie kept, with a record beside each version) the
    /// records read once.
    func index(venueId: String) throws -> Index {
        guard let folder = folder(venueId), FileManager.default.fileExists(atPath: folder) else { return Index(versions: [], pruned: 0) }
        if let data = FileManager.default.contents(atPath: folder + "/index.json") {
            return try Self.decoder.decode(Index.self, from: data)
        }
        let versions = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }.compactMap { name in
            try? Self.decoder.decode(Version.self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
        }
        return Index(versions: versions.sorted { $0.number < $1.number }, pruned: 0)
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

    /// Keeps `text` as the venue's next version: the text first, then the index that lists it,
    /// each written atomically, so that a version listed always has its text. A text the newest
    /// version has already is not kept again: that version is returned. Past the bounds, the
    /// oldest versions are removed. Blocking; call it holding `exclusively`.
    @discardableResult
    public func record(venueId: String, text: String, staffEmail: String?, at date: Date, note: String?) throws -> Version {
        guard let folder = folder(venueId) else { throw CocoaError(.fileWriteInvalidFileName) }
        // The data folder's own: readable by the service user only.
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let bytes = Data(text.utf8)
        let hash = MissionFileReader.hash(bytes)
        var index = try index(venueId: venueId)
        if let newest = index.versions.last, newest.hash == hash { return newest }
        let number = (index.versions.last?.number ?? 0) + 1
        let version = Version(number: number, savedAt: date, staffEmail: staffEmail, hash: hash, bytes: bytes.count, note: note)
        try MissionFileWriter.writeAtomically(bytes, to: folder + "/" + Self.name(number) + ".yaml", mode: 0o600)
        index.versions.append(version)
        var removed: [Version] = []
        while index.versions.count > 2,
            index.versions.count > Self.keptVersions || index.versions.reduce(0, { $0 + $1.bytes }) > Self.keptBytes {
            removed.append(index.versions.removeFirst())
        }
        index.pruned += removed.count
        try MissionFileWriter.writeAtomically(try Self.encoder.encode(index), to: folder + "/index.json", mode: 0o600)
        // Gone from the index first: a version listed always has its text.
        for old in removed {
            try? FileManager.default.removeItem(atPath: folder + "/" + Self.name(old.number) + ".yaml")
            try? FileManager.default.removeItem(atPath: folder + "/" + Self.name(old.number) + ".json")
        }
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

    /// The number `record` gives the version of `text` saved over the file on disk `onDisk`
    /// (recording the file as found first when the newest version is not it). Blocking.
    public func numberOfSave(venueId: String, text: String, onDisk: String?) throws -> Int {
        let newest = try versions(venueId: venueId).first
        var number = newest?.number ?? 0, last = newest?.hash
        if let onDisk, last != MissionFileReader.hash(Data(onDisk.utf8)) {
            number += 1
            last = MissionFileReader.hash(Data(onDisk.utf8))
        }
        return last == MissionFileReader.hash(Data(text.utf8)) ? number : number + 1
    }

    static func name(_ number: Int) -> String {
        String(format: "%06d", number)
    }
}
