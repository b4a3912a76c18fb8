import Crypto
import Foundation
import GroupieCore
import Yams

/// Reads one venue's mission file, checks every rule, and reports all problems at once.
public struct MissionFileReader: Sendable {
    /// Far larger than any real venue (a 2,000-mission file is about 1 MB).
    public static let maxFileSize = 4 * 1024 * 1024

    /// Folder that icons, logos and stickers are looked up in; nil skips those checks.
    public var assetsDirectory: String?

    public init(assetsDirectory: String?) {
        self.assetsDirectory = assetsDirectory
    }

    /// Reads the file at `path`; the venue id it must declare is the file name without `.yaml`.
    public func read(fileAt path: String) -> MissionFileReport {
        // Opened without waiting: a FIFO put in the folder would block an ordinary open until
        // something writes to it, and with it every later reload and the server's start.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            return MissionFileReport(path: path, venue: nil, contentHash: "", problems: [problem(path, 1, 1, MissionMessages.unreadable(error))])
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        defer { try? handle.close() }
        var info = stat()
        if fstat(descriptor, &info) == 0, let kind = Self.kind(of: info.st_mode) {
            return MissionFileReport(path: path, venue: nil, contentHash: "", problems: [problem(path, 1, 1, MissionMessages.notRegularFile(kind: kind))])
        }
        do {
            let bytes = try handle.read(upToCount: Self.maxFileSize + 1) ?? Data()
            if bytes.count > Self.maxFileSize {
                return MissionFileReport(
                    path: path, venue: nil, contentHash: Self.hash(bytes),
                    problems: [problem(path, 1, 1, MissionMessages.fileTooLarge(size: Int(info.st_size), limit: Self.maxFileSize))]
                )
            }
            return read(bytes: bytes, path: path)
        } catch {
            return MissionFileReport(
                path: path, venue: nil, contentHash: "",
                problems: [problem(path, 1, 1, MissionMessages.unreadable(error))]
            )
        }
    }

    /// What a file of `mode` is when it is not a regular file, in words; nil for a regular file.
    static func kind(of mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a folder"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        default: "not a regular file"
        }
    }

    /// Checks `bytes` as if they were the file at `path`.
    public func read(bytes: Data, path: String) -> MissionFileReport {
        let hash = Self.hash(bytes)
        let expectedId = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        if bytes.count > Self.maxFileSize {
            return MissionFileReport(
                path: path, venue: nil, contentHash: hash,
                problems: [problem(path, 1, 1, MissionMessages.fileTooLarge(size: bytes.count, limit: Self.maxFileSize))]
            )
        }
        let text: String
        switch Self.decodeUTF8(bytes) {
        case .success(let decoded):
            text = decoded
        case .failure(let position):
            return MissionFileReport(
                path: path, venue: nil, contentHash: hash,
                problems: [problem(path, position.line, position.column, MissionMessages.notUTF8)]
            )
        }
        let parser = VenueParser(path: path, expectedId: expectedId, assetsDirectory: assetsDirectory)
        let venue = parser.parse(text)
        let problems = parser.problems.sorted { ($0.line, $0.column) < ($1.line, $1.column) }
        let hasErrors = problems.contains { $0.severity == .error }
        return MissionFileReport(path: path, venue: hasErrors ? nil : venue, contentHash: hash, problems: problems)
    }

    public static func hash(_ bytes: Data) -> String {
        Hex.string(SHA256.hash(data: bytes))
    }

    private func problem(_ path: String, _ line: Int, _ column: Int, _ message: String) -> MissionProblem {
        MissionProblem(path: path, line: line, column: column, severity: .error, message: message)
    }

    /// Decodes UTF-8, or tells where the first byte that is not UTF-8 is.
    static func decodeUTF8(_ bytes: Data) -> Result<String, InvalidUTF8> {
        if let text = String(validating: bytes, as: UTF8.self) { return .success(text) }
        var line = 1, column = 1
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar == "\n" { line += 1; column = 1 } else { column += 1 }
            case .emptyInput:
                return .failure(InvalidUTF8(line: line, column: column))
            case .error:
                return .failure(InvalidUTF8(line: line, column: column))
            }
        }
    }

    struct InvalidUTF8: Error {
        var line: Int
        var column: Int
    }
}

/// What reading a mission file found.
public struct MissionFileReport: Sendable {
    public var path: String
    /// The venue, when the file has no errors (warnings allowed).
    public var venue: Venue?
    /// SHA-256 of the file's bytes, hex.
    public var contentHash: String
    /// Sorted by line and column.
    public var problems: [MissionProblem]

    public var errors: [MissionProblem] { problems.filter { $0.severity == .error } }
    public var warnings: [MissionProblem] { problems.filter { $0.severity == .warning } }
    public var isValid: Bool { venue != nil }
}
