import Foundation
import GRDB
import GroupieStorage
import Synchronization

/// Writes that arrive together commit together: each waits in a queue, and one drain at a
/// time runs the waiting writes on SQLite's single writer in one transaction, each in a
/// savepoint of its own, and commits once. With `synchronous=FULL` a commit costs a flush of
/// the WAL to disk; sixteen phones joining at once then pay for one flush, not sixteen.
///
/// Every write keeps its own outcome: one that throws is rolled back to its savepoint and
/// changes nothing, while the others commit; none is answered before the commit that holds
/// it is on disk, so an acknowledged change survives a power cut as it did one at a time.
final class GroupCommit: Sendable {
    private struct Waiting: Sendable {
        /// Runs the write inside the batch's transaction; returns what to answer once committed.
        let run: @Sendable (Database) -> @Sendable (Error?) -> Void
        /// Answers a write that never ran.
        let fail: @Sendable (Error) -> Void
    }

    private struct Queue: Sendable {
        var waiting: [Waiting] = []
        /// Whether a drain is under way: it takes every write that arrives before it finds the
        /// queue empty, so a write that finds one running only waits to be answered.
        var draining = false
    }

    static let batchLimit = 64
    private let writer: any DatabaseWriter
    private let queue = Mutex(Queue())

    init(writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// Runs `body` in a transaction shared with the writes waiting now, and returns its result
    /// once that transaction has committed. A disk too full for it throws `StorageFull`: SQLite
    /// has rolled it back, and the next write that fits goes through.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await enqueue(body)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
            throw StorageFull("the database's disk is full (\(error.message ?? "SQLITE_FULL"))")
        }
    }

    private func enqueue<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            let startsDrain = queue.withLock { queue in
                queue.waiting.append(Waiting(run: { db in
                    let result = Self.run(body, db)
                    return { commitError in
                        if let commitError, case .success = result {
                            continuation.resume(throwing: commitError)
                        } else {
                            continuation.resume(with: result)
                        }
                    }
                }, fail: { continuation.resume(throwing: $0) }))
                defer { queue.draining = true }
                return !queue.draining
            }
            // In a task of its own: GRDB interrupts the statements of a task that is cancelled,
            // and a drain runs the writes of many requests.
            if startsDrain { Task { await self.drain() } }
        }
    }

    /// One write in its savepoint of the batch's transaction.
    private static func run<T>(_ body: (Database) throws -> T, _ db: Database) -> Result<T, Error> {
        guard db.isInsideTransaction else {
            // SQLite ended the batch's transaction after a failure (a full disk, an I/O error):
            // a write now would commit on its own, unseen by the batch.
            return .failure(DatabaseError(resultCode: .SQLITE_ABORT, message: "the batch's transaction ended before this write ran"))
        }
        return Result {
            var value: T?
            try db.inSavepoint {
                value = try body(db)
                return .commit
            }
            guard let value else { throw DatabaseError(resultCode: .SQLITE_INTERNAL) }
            return value
        }
    }

    /// How many writes wait for the next batch: for tests.
    var waitingCount: Int { queue.withLock { $0.waiting.count } }

    /// Commits the waiting writes, oldest first, in batches of at most `batchLimit` (each write
    /// waits for the slowest of its batch), until none waits. A batch is taken on the writer, at
    /// the last moment, so that it holds every write that arrived during the previous commit;
    /// after a few batches the drain gives the writer up, so that other writes take their turn.
    private func drain() async {
        while true {
            do {
                let more = try await writer.writeWithoutTransaction { db in
                    for _ in 0..<Self.batchesPerTurn {
                        guard let batch = self.nextBatch() else { return false }
                        self.commit(batch, db)
                    }
                    return true
                }
                if !more { return }
            } catch {
                // The writer cannot be reached (the database is gone): every waiting write hears why.
                let waiting = queue.withLock { queue in
                    defer { queue.waiting = []; queue.draining = false }
                    return queue.waiting
                }
                for write in waiting { write.fail(error) }
                return
            }
        }
    }

    private static let batchesPerTurn = 4

    /// The oldest waiting writes, at most `batchLimit`; nil, and the drain over, when none waits.
    private func nextBatch() -> [Waiting]? {
        queue.withLock { queue in
            guard !queue.waiting.isEmpty else {
                queue.draining = false
                return nil
            }
            let taken = Array(queue.waiting.prefix(Self.batchLimit))
            queue.waiting.removeFirst(taken.count)
            return taken
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
