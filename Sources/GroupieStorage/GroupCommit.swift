import Foundation
import GRDB
import Synchronization

/// Writes that arrive together commit together: each waits in a queue, and whichever drain
/// reaches SQLite's single writer first runs every waiting write in one transaction, each in a
/// savepoint of its own, and commits once. With `synchronous=FULL` a commit costs a flush of
/// the WAL to disk; sixteen phones joining at once then pay for one flush, not sixteen.
///
/// Every write keeps its own outcome: one that throws is rolled back to its savepoint and
/// changes nothing, while the others commit; none is answered before the commit that holds
/// it is on disk, so an acknowledged change survives a power cut as it did one at a time.
final class GroupCommit: Sendable {
    private struct Waiting: Sendable {
        let id: UInt64
        /// Runs the write inside the batch's transaction; returns what to answer once committed.
        let run: @Sendable (Database) -> @Sendable (Error?) -> Void
        /// Answers a write that never ran.
        let fail: @Sendable (Error) -> Void
    }

    static let batchLimit = 64
    private let writer: any DatabaseWriter
    private let queue = Mutex<(next: UInt64, waiting: [Waiting])>((0, []))

    init(writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// Runs `body` in a transaction shared with the writes waiting now, and returns its result
    /// once that transaction has committed.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let outcome = Mutex<Result<T, Error>?>(nil)
        let id = queue.withLock { queue in
            queue.next += 1
            queue.waiting.append(
                Waiting(id: queue.next, run: { db in
                    let result: Result<T, Error>
                    if !db.isInsideTransaction {
                        // SQLite ended the batch's transaction after a failure (a full disk, an
                        // I/O error): a write now would commit on its own, unseen by the batch.
                        result = .failure(DatabaseError(resultCode: .SQLITE_ABORT, message: "the batch's transaction ended before this write ran"))
                    } else {
                        result = Result {
                            var value: T?
                            try db.inSavepoint {
                                value = try body(db)
                                return .commit
                            }
                            guard let value else { throw DatabaseError(resultCode: .SQLITE_INTERNAL) }
                            return value
                        }
                    }
                    return { commitError in
                        outcome.withLock { stored in
                            if let commitError, case .success = result {
                                stored = .failure(commitError)
                            } else {
                                stored = result
                            }
                        }
                    }
                }, fail: { error in outcome.withLock { $0 = .failure(error) } }))
            return queue.next
        }
        do {
            // In a task of its own: GRDB interrupts the statements of a task that is cancelled,
            // and this drain may run the writes of other requests too.
            let writer = self.writer
            try await Task { try await writer.writeWithoutTransaction { db in self.drain(db, until: id) } }.value
        } catch {
            // This drain never ran (the database is gone): a write still waiting is withdrawn,
            // so that no later batch commits what nobody will be told of.
            let withdrawn = queue.withLock { queue in
                guard let index = queue.waiting.firstIndex(where: { $0.id == id }) else { return false }
                queue.waiting.remove(at: index)
                return true
            }
            if withdrawn { throw error }
        }
        // Drains run one at a time on the writer, so the one that took this write has finished.
        guard let result = outcome.withLock({ $0 }) else {
            throw DatabaseError(resultCode: .SQLITE_INTERNAL, message: "a batched write was not run")
        }
        return try result.get()
    }

    /// How many writes wait for the next drain: for tests.
    var waitingCount: Int { queue.withLock { $0.waiting.count } }

    /// On the writer: commits the waiting writes, oldest first, in batches of at most
    /// `batchLimit` (each write waits for the slowest of its batch), until the write `id` is
    /// done; nothing when an earlier drain did it.
    private func drain(_ db: Database, until id: UInt64) {
        while let batch = queue.withLock({ queue -> [Waiting]? in
            guard queue.waiting.contains(where: { $0.id == id }) else { return nil }
            let taken = Array(queue.waiting.prefix(Self.batchLimit))
            queue.waiting.removeFirst(taken.count)
            return taken
        }) {
            commit(batch, db)
        }
    }

    /// Runs `batch` in one transaction and answers each of its writes.
    private func commit(_ batch: [Waiting], _ db: Database) {
        var answers: [@Sendable (Error?) -> Void] = []
        answers.reserveCapacity(batch.count)
        do {
            try db.inTransaction(.immediate) {
                for waiting in batch { answers.append(waiting.run(db)) }
                return .commit
            }
        } catch {
            // Nothing of the batch committed: every write hears why, the failed ones their own reason.
            for answer in answers { answer(error) }
            for waiting in batch.dropFirst(answers.count) { waiting.fail(error) }
            return
        }
        for answer in answers { answer(nil) }
    }
}
