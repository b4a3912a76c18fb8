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
///
/// The uploads in progress are bounded by number (per player, per group, per client address and
/// in all: `Counts.bounds`) and by what they announce (their declared totals, reserved when they
/// start): a byte of a 25 MiB photo each, or uploads that reserve one byte each, cannot take the
/// server's room. A player's newest upload wins: past their bound, their oldest goes. The bound
/// in bytes per address counts only uploads that moved in the last `addressWindow` (an hour): a
/// phone that went away with its upload half sent does not hold back the others behind the
/// museum's one address all day. An upload untouched for `lifetime` goes, and one that received
/// no byte in `addressWindow` (announced, never sent) goes then.
///
/// The uploads in progress are listed in `uploads/.index.json`, read and replaced under the
/// folder's lock (`.lock`) as an upload starts or goes: a start reads one file, never every
/// upload's state. The file work runs on threads of the uploads' own (`fileIO`), apart from
/// those that read photos, and none of them ever waits for a lock: while another request (or
/// instance) holds one, the request waits a moment off the threads and tries again.
struct PartialUploads: Sendable {
    struct Limits: Sendable {
        var perGroup: Int
        var perAddress: Int
        var total: Int
        var lifetime: TimeInterval
    }

    /// How many uploads may be in progress at once.
    struct Counts: Sendable {
        var perPlayer: Int
        var perGroup: Int
        var perAddress: Int
        var total: Int

        /// A phone sends its queue one photo at a time (past its bound, its oldest goes); a class
        /// behind one address sends a few each.
        static let bounds = Counts(perPlayer: 8, perGroup: 64, perAddress: 200, total: 4000)
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

    /// An upload in progress as the index lists it: what its bounds count.
    struct Entry: Codable, Equatable, Sendable {
        /// The hashed part of the player's name in the upload's folder.
        var player: String
        var address: String?
        var total: Int
        var startedAt: Double
    }

    /// The uploads in progress by their folder under the root (`<group>/<upload>`).
    typealias Index = [String: Entry]

    let directory: String
    let limits: Limits
    let counts: Counts
    let fileIO: FileIO
    let clock: @Sendable () -> Date

    init(directory: String, limits: Limits, counts: Counts = .bounds, fileIO: FileIO, clock: @escaping @Sendable () -> Date) throws {
        self.directory = directory
        self.limits = limits
        self.counts = counts
        self.fileIO = fileIO
        self.clock = clock
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Self.reconcile(root: directory)
    }

    func folder(of groupId: String) -> String { directory + "/" + Self.hash(groupId) }
    /// The player's part of the name first, so that erasing the player finds their uploads.
    func folder(of name: Name) -> String { directory + "/" + Self.relative(name) }

    /// The upload's folder under the root, as the index names it.
    static func relative(_ name: Name) -> String {
        hash(name.groupId) + "/" + playerPart(name.playerId) + "-" + hash(name.playerId + "\n" + name.key)
    }

    static func playerPart(_ playerId: String) -> String { String(hash(playerId).prefix(16)) }

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
    /// part of an upload takes its place within the bounds, under the folder's lock.
    func prepare(_ name: Name, range: ContentRange, task: GroupProgress.TaskKey?, choose: Bool, address: String) async throws -> State {
        let path = folder(of: name), limits = limits, lifetime = limits.lifetime, now = clock().timeIntervalSince1970
        // A part of an upload under way reads its own state alone, with no lock but its own.
        let going = try await fileIO.run { () -> State? in
            guard let state = Self.readState(path), now - state.updatedAt <= lifetime else { return nil }
            try Self.check(range, task: task, against: state)
            return state
        }
        if let going { return going }
        if let bytes = range.bytes, bytes.lowerBound != 0 { throw Problem.offsetMismatch(0) }
        let root = directory, relative = Self.relative(name), counts = counts
        let entry = Entry(player: Self.playerPart(name.playerId), address: Self.hash("address\n" + address), total: range.total, startedAt: now)
        return try await exclusively {
            // Started by another request since, or expired and started again.
            if let state = Self.readState(path) {
                if now - state.updatedAt <= lifetime {
                    try Self.check(range, task: task, against: state)
                    return state
                }
                try? FileManager.default.removeItem(atPath: path)
            }
            let listed = Self.readIndex(root: root)
            var index = listed
            Self.removeExpired(&index, root: root, now: now, lifetime: lifetime)
            index[relative] = nil
            do {
                try Self.admit(entry, as: relative, to: &index, root: root, limits: limits, counts: counts, now: now)
            } catch {
                // What went meanwhile (expired, struck off) stays gone for the next start.
                if index != listed { try? Self.writeIndex(index, root: root) }
                throw error
            }
            // Listed before it exists: a crash in between leaves an entry that goes with its lifetime.
            index[relative] = entry
            try Self.writeIndex(index, root: root)
            let state = State(
                total: range.total, received: 0, missionId: task?.missionId, taskId: task?.taskId, choose: choose, updatedAt: now, address: entry.address
            )
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: path + "/data", contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            try Self.writeState(state, to: path)
            try BlobStore.fsync(path: (path as NSString).deletingLastPathComponent)
            return state
        }
    }

    /// Appends the part received in `partFile` (exactly the range's bytes) under the upload's
    /// lock, durably, and returns the state that counts it.
    func append(_ partFile: String, to name: Name, range: ContentRange, task: GroupProgress.TaskKey?) async throws -> State {
        let path = folder(of: name), now = clock().timeIntervalSince1970
        guard let lock = try await take(path + "/lock", patience: Self.partPatience) else { throw Problem.uploadBusy }
        defer { lock.release() }
        return try await fileIO.run {
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
        let taken: FileLock?
        do {
            taken = try await take(path + "/lock", patience: Self.partPatience)
        } catch let problem as Problem where problem.code == Problem.offsetMismatch(0).code {
            return nil  // Completed (and removed) by the request that held it.
        }
        guard let lock = taken else { return nil }
        defer { lock.release() }
        guard let state = try await fileIO.run({ Self.readState(path) }), state.received == state.total else { return nil }
        let (value, remove) = try await body(state, path + "/data")
        // The photo is made: an upload that cannot go now goes with its lifetime.
        if remove { try? await discard(name) }
        return value
    }

    /// Removes the upload's bytes (done, refused for good).
    func discard(_ name: Name) async throws {
        let root = directory, relative = Self.relative(name)
        try await exclusively {
            var index = Self.readIndex(root: root)
            Self.remove(relative, from: &index, root: root)
            try Self.writeIndex(index, root: root)
        }
    }

    /// Removes every upload of the player's, in any group (the player is erased): the folders
    /// on disk, listed or not.
    func discard(uploadsOf playerId: String) async throws {
        let root = directory, prefix = Self.playerPart(playerId) + "-"
        try await exclusively {
            var index = Self.readIndex(root: root)
            for group in Self.groups(in: root) {
                for upload in Self.uploads(in: group) where (upload as NSString).lastPathComponent.hasPrefix(prefix) {
                    Self.remove((group as NSString).lastPathComponent + "/" + (upload as NSString).lastPathComponent, from: &index, root: root)
                }
            }
            try Self.writeIndex(index, root: root)
        }
    }

    /// How long a request tries for the folder's lock before it answers `upload-busy`.
    static let lockPatience: Duration = .seconds(60)

    /// How long a part waits for its upload's lock before it answers `upload-busy`. The lock is
    /// held while another part is appended or the photo is made, and, for an instant, by a
    /// process being started (it inherits the descriptor until it runs its program): a client
    /// that sends its parts one after another never meets it.
    static let partPatience: Duration = .seconds(10)

    /// Runs `body` on the uploads' threads holding the folder's lock, which the instances on the
    /// data folder share.
    private func exclusively<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        guard let lock = try await take(directory + "/.lock", patience: Self.lockPatience) else { throw Problem.uploadBusy }
        defer { lock.release() }
        return try await fileIO.run(body)
    }

    /// The lock at `lockPath`, or nil when others held it all of `patience`. No thread waits for
    /// it: while another holds it, the task sleeps a moment and tries again.
    private func take(_ lockPath: String, patience: Duration) async throws -> FileLock? {
        let clock = ContinuousClock(), deadline = clock.now + patience
        var pause = Duration.milliseconds(1)
        while true {
            if let lock = try await fileIO.run({ try FileLock.take(lockPath) }) { return lock }
            guard clock.now < deadline else { return nil }
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(50))
        }
    }

    // MARK: On disk (blocking)

    static func check(_ range: ContentRange, task: GroupProgress.TaskKey?, against state: State) throws {
        guard range.total == state.total else { throw Problem.totalChanged(state.total) }
        guard task?.missionId == state.missionId, task?.taskId == state.taskId else { throw PhotoError.keyReused }
        if let bytes = range.bytes, bytes.lowerBound != state.received { throw Problem.offsetMismatch(state.received) }
    }

    /// Whether `entry` may start beside the uploads of `index`. A player's newest upload wins:
    /// past their bound, their oldest that no request is adding to goes (a phone that lost its
    /// keys starts again). An entry whose folder went (a crash between the two) is struck off
    /// before another bound refuses.
    static func admit(_ entry: Entry, as relative: String, to index: inout Index, root: String, limits: Limits, counts: Counts, now: Double) throws {
        let mine = index.filter { $0.value.player == entry.player }.sorted { $0.value.startedAt < $1.value.startedAt }
        var ending: [String] = []
        for (path, _) in mine where ending.count < mine.count + 1 - counts.perPlayer {
            if FileManager.default.fileExists(atPath: root + "/" + path) {
                guard let lock = try? FileLock.take(root + "/" + path + "/lock") else { continue }
                lock.release()
            }
            ending.append(path)
        }
        if mine.count - ending.count >= counts.perPlayer { throw Problem.tooManyUploads }
        let group = groupPart(relative)
        func refusal(_ index: Index) -> Problem? {
            var number = (group: 0, address: 0, total: index.count)
            var bytes = (group: entry.total, address: entry.total, total: entry.total)
            for (path, other) in index {
                bytes.total += other.total
                if groupPart(path) == group {
                    number.group += 1
                    bytes.group += other.total
                }
                guard other.address == entry.address else { continue }
                number.address += 1
                if movedSince(path, other, root: root, since: now - addressWindow) { bytes.address += other.total }
            }
            if number.group >= counts.perGroup || number.address >= counts.perAddress || number.total >= counts.total { return .tooManyUploads }
            if bytes.group > limits.perGroup || bytes.address > limits.perAddress || bytes.total > limits.total { return .uploadSpaceFull }
            return nil
        }
        // Only a start that is taken ends the player's oldest.
        let staying = index.filter { !ending.contains($0.key) }
        if refusal(staying) != nil {
            index = index.filter { FileManager.default.fileExists(atPath: root + "/" + $0.key) }
            if let problem = refusal(index.filter { !ending.contains($0.key) }) { throw problem }
        }
        for path in ending { remove(path, from: &index, root: root) }
    }

    static func groupPart(_ relative: String) -> Substring { relative.prefix { $0 != "/" } }

    /// Whether the upload moved since `since`: by its start, else by its state.
    static func movedSince(_ path: String, _ entry: Entry, root: String, since: Double) -> Bool {
        if entry.startedAt >= since { return true }
        return (readState(root + "/" + path)?.updatedAt ?? 0) >= since
    }

    static func readState(_ folder: String) -> State? {
        guard let data = FileManager.default.contents(atPath: folder + "/state.json") else { return nil }
        return try? JSONDecoder().decode(State.self, from: data)
    }

    /// Beside, synchronised, renamed into place, the folder synchronised.
    static func writeState(_ state: State, to folder: String) throws {
        try replace(folder + "/state.json", with: try JSONEncoder().encode(state))
    }

    static func replace(_ path: String, with data: Data) throws {
        let temporary = path + ".new"
        try data.write(to: URL(fileURLWithPath: temporary))
        try BlobStore.fsync(path: temporary)
        guard rename(temporary, path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        try BlobStore.fsync(path: (path as NSString).deletingLastPathComponent)
    }

    /// Strikes the upload off and removes its folder, and its group's folder when that is empty.
    static func remove(_ relative: String, from index: inout Index, root: String) {
        try? FileManager.default.removeItem(atPath: root + "/" + relative)
        rmdir(root + "/" + groupPart(relative))
        index[relative] = nil
    }

    static func uploads(in groupFolder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: groupFolder)) ?? []).map { groupFolder + "/" + $0 }
    }

    static func groups(in root: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).filter { !$0.hasPrefix(".") }.map { root + "/" + $0 }
    }

    static let addressWindow: TimeInterval = 3600

    /// The uploads listed as started before `lifetime` ago whose state says they have not moved
    /// since (or that have no state, left by a crash as one started) go, with their folders; so
    /// do those that have not received a byte in `addressWindow` (announced, never sent).
    static func removeExpired(_ index: inout Index, root: String, now: Double, lifetime: TimeInterval) {
        for (relative, entry) in index where now - entry.startedAt > min(lifetime, addressWindow) {
            let state = readState(root + "/" + relative), updated = state?.updatedAt ?? entry.startedAt
            if now - updated > lifetime || (state?.received == 0 && now - updated > addressWindow) { remove(relative, from: &index, root: root) }
        }
    }
}
