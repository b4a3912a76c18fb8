import Foundation
import GroupieStorage
import Logging
import PostgresNIO
import Synchronization

/// Tells every instance which groups have new events, once the transaction that stored them
/// has committed. A `NOTIFY` inside the writing transaction would hold PostgreSQL's one lock on
/// the notification queue through that transaction's flush to disk, so that every write of
/// every instance committed one after another, at the disk's flush rate. Sent afterwards, in
/// batches that gather what committed meanwhile, a notification's own commit waits for no
/// flush: what it announces is on disk already. An announcement lost with a crashed instance
/// is made good by `EventRelay`'s look at the newest events every few seconds.
final class PostgresAnnouncer: Sendable {
    /// The newest event of each group the running transaction stored, announced when it commits.
    @TaskLocal static var stored: Newest?

    final class Newest: Sendable {
        let seqs = Mutex<[String: Int]>([:])

        func add(groupId: String, seq: Int) {
            seqs.withLock { $0[groupId] = max($0[groupId] ?? 0, seq) }
        }
    }

    private struct State {
        var pending: [String: Int] = [:]
        /// Staff notices waiting, as their lines, each once.
        var notices: [String] = []
        var sending = false

        var isEmpty: Bool { pending.isEmpty && notices.isEmpty }
    }

    /// This instance's name in the staff notices it sends, so that it skips its own when they
    /// come back: its pages heard them before they were sent.
    let instance = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")

    private let state = Mutex(State())
    /// A signal to the sender that announcements wait; at most one is buffered.
    private let signals: AsyncStream<Void>
    private let signal: AsyncStream<Void>.Continuation
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
        (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Sends what waits, a batch at a time, through `pool`'s connections, until cancelled: run
    /// beside the pool, as a child of its task (`PostgresPool`).
    func run(pool: PostgresPool) async {
        for await _ in signals {
            await drain(pool)
        }
    }

    /// Runs `body` (one attempt at a transaction), then announces what it stored once it returns.
    func announcing<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        let newest = Newest()
        let value = try await Self.$stored.withValue(newest) { try await body() }
        announce(newest.seqs.withLock { $0 })
        return value
    }

    func announce(_ seqs: [String: Int]) {
        guard !seqs.isEmpty else { return }
        enqueue { $0.pending.merge(seqs, uniquingKeysWith: max) }
    }

    /// Sends a staff notice, with the events that wait, to the other instances.
    func announce(_ notice: StaffNotice) {
        let line = Self.line(notice, instance: instance)
        enqueue { state in
            if !state.notices.contains(line) { state.notices.append(line) }
        }
    }

    private func enqueue(_ change: (inout State) -> Void) {
        let start = state.withLock { state in
            change(&state)
            defer { state.sending = true }
            return !state.sending
        }
        // One sender at a time: what commits while it sends goes in its next batch.
        if start { signal.yield() }
    }

    private func drain(_ pool: PostgresPool) async {
        while let batch = state.withLock({ state -> (seqs: [String: Int], notices: [String])? in
            guard !state.isEmpty else {
                state.sending = false
                return nil
            }
            defer { (state.pending, state.notices) = ([:], []) }
            return (state.pending, state.notices)
        }) {
            for payload in Self.payloads(batch.seqs, notices: batch.notices) {
                do {
                    try await pool.client.withConnection { connection in
                        _ = try await connection.rows(Prepared<Announcement>(PostgresStore.eventChannel, payload), logger: logger)
                    }
                } catch {
                    logger.warning("cannot announce committed events to the other instances: \(error)")
                }
            }
        }
    }

    /// Lines of `<group id> <seq>`, then the staff notices' lines, in payloads under
    /// PostgreSQL's limit of 8,000 bytes.
    static func payloads(_ seqs: [String: Int], notices: [String] = []) -> [String] {
        var payloads: [String] = [], current = ""
        for line in seqs.sorted(by: { $0.key < $1.key }).map({ "\($0.key) \($0.value)" }) + notices {
            if !current.isEmpty, current.utf8.count + 1 + line.utf8.count > 7_000 {
                payloads.append(current)
                current = ""
            }
            current += (current.isEmpty ? "" : "\n") + line
        }
        if !current.isEmpty { payloads.append(current) }
        return payloads
    }

    /// The groups and newest events a payload announces.
    static func announced(in payload: String) -> [(groupId: String, seq: Int)] {
        payload.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 2, let seq = Int(parts[1]) else { return nil }
            return (String(parts[0]), seq)
        }
    }

    /// A staff notice's line: `staff <kind> <group id> <instance>`, four words, which
    /// `announced(in:)` (two words) passes over.
    static func line(_ notice: StaffNotice, instance: String) -> String {
        switch notice {
        case .reviewChanged(let groupId): "staff review-changed \(groupId) \(instance)"
        case .groupCreated(let groupId): "staff group-created \(groupId) \(instance)"
        }
    }

    /// The staff notices a payload carries from instances other than `except`.
    static func notices(in payload: String, except instance: String) -> [StaffNotice] {
        payload.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ").map(String.init)
            guard parts.count == 4, parts[0] == "staff", parts[3] != instance else { return nil }
            switch parts[1] {
            case "review-changed": return .reviewChanged(groupId: parts[2])
            case "group-created": return .groupCreated(groupId: parts[2])
            default: return nil
            }
        }
    }
}

/// One announcement, prepared as the writes are: it goes out after most of them. Its own
/// transaction need not wait for the disk (`synchronous_commit` off): it writes nothing to keep.
enum Announcement: PreparedSQL {
    static let types: [PostgresDataType] = [.text, .text]
    static let sql = "SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, $2)"
}
