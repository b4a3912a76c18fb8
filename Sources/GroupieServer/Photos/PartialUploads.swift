import Crypto
import Foundation
import GroupieCore
import GroupieStorage
import HTTPTypes

/// The bytes of resumable uploads that have not all arrived yet, on disk in the data folder:
/// `uploads/<group>/<upload>/` holds `data` (the bytes so far), `state.json` (the total, the
/// task, how many bytes are durable) and `lock`. Each is named by a hash, never by what the
/// client sent.
///
/// A part is received into a file of its own first, then appended under the upload's lock
/// (`flock`, so instances sharing the data folder take turns), written to disk (`fsync`) and
/// only then counted in `state.json`, itself replaced atomically: an offset the server
/// acknowledges is never lost, and a part that stopped half-way is never counted.
/// What the uploads in progress may announce is bounded per group, per client address and in
/// total (by their declared totals, reserved when they start), and an upload untouched for
/// `lifetime` goes. The bound per address keeps one machine's uploads that never go on (a byte
/// of a 25 MiB photo each) from taking the whole server's room: it takes several. It counts
/// only uploads that moved in the last `addressWindow`: a phone that went away with its upload
/// half sent does not hold back the others behind the museum's one address all day.
///
/// `addressWindow` is an hour.
struct PartialUploads: Sendable {
    struct Limits: Sendable {
        var perGroup: Int
        var perAddress: Int
        var total: Int
        var lifetime: TimeInterval
    }

    /// Where one upload stands.
    struct State: Codable, Equatable, Sendable {
        var total: Int
        var received: Int
        var missionId: String?
        var taskId: String?
        var choose: Bool
        var updatedAt: Double
        /// A hash of the client address that started the upload (none in an upload started
        /// before Groupie kept it).
        var address: String?
    }

    /// Whose upload, of which group, under which key.
    struct Name: Sendable {
        var groupId: String
        var playerId: String
        var key: String
    }

    let directory: String
    let limits: Limits
    let fileIO: FileIO
    let clock: @Sendable () -> Date

    init(directory: String, limits: Limits, fileIO: FileIO, clock: @escaping @Sendable () -> Date) throws {
        self.directory = directory
        self.limits = limits
        self.fileIO = fileIO
        self.clock = clock
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func folder(of groupId: String) -> String { directory + "/" + Self.hash(groupId) }
    /// The player's part of the name first, so that erasing the player finds their uploads.
    func folder(of name: Name) -> String {
        folder(of: name.groupId) + "/" + Self.hash(name.playerId).prefix(16) + "-" + Self.hash(name.playerId + "\n" + name.key)
    }
    func dataPath(of name: Name) -> String { folder(of: name) + "/data" }

    static func hash(_ text: String) -> String { String(Hex.string(SHA256.hash(data: Data(text.utf8))).prefix(32)) }

    // MARK: Reading

    /// The upload's state, nil when none is stored (never started, done, or expired).
    func state(of name: Name) async throws -> State? {
        let path = folder(of: name)
        let now = clock().timeIntervalSince1970, lifetime = limits.lifetime
        return try await fileIO.run {
            guard let state = Self.readState(path), now - state.updatedAt <= lifetime else { return nil }
            return state
        }
    }

    // MARK: Starting and appending

    /// Checks that a part may be taken before any of its bytes is read: the same total and
    /// task as the upload's first part, and starting where the stored bytes end. The first
    /// part of an upload reserves its total within the bounds, under the folder's lock.
    func prepare(_ name: Name, range: ContentRange, task: GroupProgress.TaskKey?, choose: Bool, address: String) async throws -> State {
        let root = directory, groupFolder = folder(of: name.groupId), path = folder(of: name), address = Self.hash("address\n" + address)
        let limits = limits, now = clock().timeIntervalSince1970
        return try await fileIO.run {
            let lock = try FileLock(path: root + "/.lock", wait: true)
            defer { lock.release() }
            if let state = Self.readState(path) {
                if now - state.updatedAt <= limits.lifetime {
                    try Self.check(range, task: task, against: state)
                    return state
                }
                try? FileManager.default.removeItem(atPath: path)
            }
            // Only an upload that starts looks at every other: a later part reads its own state alone.
            Self.removeExpired(root: root, now: now, lifetime: limits.lifetime)
            if let bytes = range.bytes, bytes.lowerBound != 0 { throw Problem.offsetMismatch(0) }
            let (inGroup, everywhere, fromAddress) = Self.reserved(root: root, group: groupFolder, address: address, since: now - Self.addressWindow)
            guard inGroup + range.total <= limits.perGroup, everywhere + range.total <= limits.total, fromAddress + range.total <= limits.perAddress else {
                throw Problem.uploadSpaceFull
            }
            let state = State(
                total: range.total, received: 0, missionId: task?.missionId, taskId: task?.taskId, choose: choose, updatedAt: now, address: address
            )
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: path + "/data", contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            try Self.writeState(state, to: path)
            try BlobStore.fsync(path: groupFolder)
            return state
        }
    }

    /// Appends the part received in `partFile` (exactly the range's bytes) under the upload's
    /// lock, durably, and returns the state that counts it.
    func append(_ partFile: String, to name: Name, range: ContentRange, task: GroupProgress.TaskKey?) async throws -> State {
        let path = folder(of: name), now = clock().timeIntervalSince1970
        return try await fileIO.run {
            let lock = try FileLock(path: path + "/lock", wait: false)
            defer { lock.release() }
            guard var state = Self.readState(path) else { throw Problem.offsetMismatch(0) }
            try Self.check(range, task: task, against: state)
            guard let bytes = range.bytes else { return state }
            let data = try FileHandle(forUpdating: URL(fileURLWithPath: path + "/data"))
            defer { try? data.close() }
            // Whatever a part cut short by a crash left past the counted bytes goes first.
            try data.truncate(atOffset: UInt64(state.received))
            try data.seekToEnd()
            let part = try FileHandle(forReadingFrom: URL(fileURLWithPath: partFile))
            defer { try? part.close() }
            while let chunk = try part.read(upToCount: UploadReceiver.flushSize), !chunk.isEmpty {
                try data.write(contentsOf: chunk)
            }
            try data.synchronize()
            state.received = bytes.upperBound + 1
            state.updatedAt = now
            try Self.writeState(state, to: path)
            return state
        }
    }

    /// Runs `body` with the upload's lock held, when every byte is there; nil when another
    /// request holds the lock. The upload's folder goes when `body` says so.
    func completing<T: Sendable>(_ name: Name, _ body: (State, String) async throws -> (T, remove: Bool)) async throws -> T? {
        let path = folder(of: name)
        let lock: FileLock
        do {
            lock = try await fileIO.run { try FileLock(path: path + "/lock", wait: false) }
        } catch let problem as Problem where problem.code == Problem.uploadBusy.code {
            return nil
        }
        defer { lock.release() }
        guard let state = try await fileIO.run({ Self.readState(path) }), state.received == state.total else { return nil }
        let (value, remove) = try await body(state, path + "/data")
        if remove { try await discard(name) }
        return value
    }

    /// Removes the upload's bytes (done, refused for good).
    func discard(_ name: Name) async throws {
        let path = folder(of: name)
        try await fileIO.run { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Removes every upload of the player's, in any group (the player is erased).
    func discard(uploadsOf playerId: String) async throws {
        let root = directory, prefix = Self.hash(playerId).prefix(16) + "-"
        try await fileIO.run {
            for group in Self.groups(in: root) {
                for upload in Self.uploads(in: group) where (upload as NSString).lastPathComponent.hasPrefix(prefix) {
                    try? FileManager.default.removeItem(atPath: upload)
                }
            }
        }
    }

    // MARK: On disk (blocking)

    static func check(_ range: ContentRange, task: GroupProgress.TaskKey?, against state: State) throws {
        guard range.total == state.total else { throw Problem.totalChanged(state.total) }
        guard task?.missionId == state.missionId, task?.taskId == state.taskId else { throw PhotoError.keyReused }
        if let bytes = range.bytes, bytes.lowerBound != state.received { throw Problem.offsetMismatch(state.received) }
    }

    static func readState(_ folder: String) -> State? {
        guard let data = FileManager.default.contents(atPath: folder + "/state.json") else { return nil }
        return try? JSONDecoder().decode(State.self, from: data)
    }

    /// Beside, synchronised, renamed into place, the folder synchronised.
    static func writeState(_ state: State, to folder: String) throws {
        let temporary = folder + "/state.json.new"
        try JSONEncoder().encode(state).write(to: URL(fileURLWithPath: temporary))
        try BlobStore.fsync(path: temporary)
        guard rename(temporary, folder + "/state.json") == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        try BlobStore.fsync(path: folder)
    }

    static func uploads(in groupFolder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: groupFolder)) ?? []).map { groupFolder + "/" + $0 }
    }

    static func groups(in root: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).filter { !$0.hasPrefix(".") }.map { root + "/" + $0 }
    }

    static let addressWindow: TimeInterval = 3600

    /// The totals the uploads in progress announced, each state read once: in the group's
    /// folder, everywhere, and of those `address` started that moved since `since`.
    static func reserved(root: String, group groupFolder: String, address: String, since: Double) -> (inGroup: Int, everywhere: Int, fromAddress: Int) {
        var sums = (inGroup: 0, everywhere: 0, fromAddress: 0)
        for folder in groups(in: root) {
            for upload in uploads(in: folder) {
                guard let state = readState(upload) else { continue }
                sums.everywhere += state.total
                if folder == groupFolder { sums.inGroup += state.total }
                if state.address == address, state.updatedAt >= since { sums.fromAddress += state.total }
            }
        }
        return sums
    }

    /// Uploads untouched for `lifetime` (and folders without a state, left by a crash as one
    /// started), then groups without uploads.
    static func removeExpired(root: String, now: Double, lifetime: TimeInterval) {
        for group in groups(in: root) {
            for upload in uploads(in: group) {
                let updated = readState(upload)?.updatedAt
                    ?? ((try? FileManager.default.attributesOfItem(atPath: upload)[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
                if now - updated > lifetime { try? FileManager.default.removeItem(atPath: upload) }
            }
            if uploads(in: group).isEmpty { try? FileManager.default.removeItem(atPath: group) }
        }
    }
}

/// `flock` on a file, held until released (or its process ends).
final class FileLock: Sendable {
    private let descriptor: Int32

    /// `wait: false` throws `Problem.uploadBusy` when another holds it.
    init(path: String, wait: Bool) throws {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            // The upload's folder went (completed, expired) since its state was read.
            if errno == ENOENT { throw Problem.offsetMismatch(0) }
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        guard flock(descriptor, wait ? LOCK_EX : LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw Problem.uploadBusy
        }
        self.descriptor = descriptor
    }

    func release() { close(descriptor) }
}

extension Problem {
    static func offsetMismatch(_ offset: Int) -> Problem {
        Problem(
            .conflict, code: "upload-offset-mismatch",
            detail: "The server has the upload's bytes up to \(offset); send the part that starts there.",
            headers: [.uploadOffset: String(offset)], extensions: ["offset": String(offset)]
        )
    }

    static func totalChanged(_ total: Int) -> Problem {
        Problem(.conflict, code: "upload-total-changed", detail: "This upload was started for a photo of \(total) bytes; a new photo needs a new key.")
    }

    static let uploadBusy = Problem(
        .conflict, code: "upload-busy", detail: "Another request is adding to this upload; ask where it stands and go on from there.",
        headers: [.retryAfter: "1"]
    )

    static let uploadSpaceFull = Problem(
        HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"), code: "uploads-full",
        detail: "Too many photos are half sent right now; try again in a while.", headers: [.retryAfter: "30"]
    )
}
