import Foundation
import GRDB
@testable import GroupieSQLite
@testable import GroupieStorage
import GroupieTestSupport
import Synchronization
import Testing

/// SQLite's group commit: writes that wait together share one transaction, and each keeps its
/// own outcome. (On PostgreSQL every request has a connection and a transaction of its own.)
@Suite("Group commit on SQLite")
struct GroupCommitTests {
    /// Counts the transactions that commit on a database.
    final class CommitCounter: TransactionObserver, Sendable {
        let commits = Mutex(0)
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { commits.withLock { $0 += 1 } }
        func databaseDidRollback(_ db: Database) {}
    }

    static func pool() throws -> DatabasePool {
        let pool = try DatabasePool(path: FileManager.default.temporaryDirectory.appendingPathComponent("groupie-\(UUID().uuidString).sqlite").path)
        try pool.write { try $0.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT NOT NULL)") }
        return pool
    }

    struct Refused: Error, Equatable { var id: Int }

    /// A database whose writer is busy until `release` is signalled, its group commit and a
    /// count of its commits: writes sent meanwhile wait together.
    static func heldWriter() async throws -> (DatabasePool, GroupCommit, CommitCounter, DispatchSemaphore, Task<Void, Error>) {
        let pool = try Self.pool()
        let counter = CommitCounter()
        pool.add(transactionObserver: counter, extent: .databaseLifetime)
        let release = DispatchSemaphore(value: 0)
        // The holder says when it has the writer: no write sent after that can start before `release`.
        let (held, holds) = AsyncStream.makeStream(of: Void.self)
        let holder = Task {
            try await pool.writeWithoutTransaction { _ in
                holds.finish()
                release.wait()
            }
        }
        try await within(.seconds(120), "the writer taken by the holder") { for await _ in held {} }
        return (pool, GroupCommit(writer: pool), counter, release, holder)
    }

    @Test("Writes that wait while the writer is busy commit in one transaction; a failed one changes nothing and the others stand")
    func batches() async throws {
        // Hold the writer until twenty writes wait behind it.
        let (pool, commits, counter, release, holder) = try await Self.heldWriter()
        let outcomes = Task {
            await withTaskGroup(of: (Int, Result<Int, Error>).self) { group in
                for id in 1...20 {
                    group.addTask {
                        do {
                            let value = try await commits.write { db in
                                try db.execute(sql: "INSERT INTO note (id, text) VALUES (?, ?)", arguments: [id, "note \(id)"])
                                if id % 5 == 0 { throw Refused(id: id) }
                                return id * 10
                            }
                            return (id, .success(value))
                        } catch {
                            return (id, .failure(error))
                        }
                    }
                }
                return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
        }
        try await eventually("twenty writes waiting behind the held writer") { commits.waitingCount >= 20 }
        let before = counter.commits.withLock { $0 }
        release.signal()
        try await holder.value
        let results = await outcomes.value

        #expect(counter.commits.withLock { $0 } - before == 1, "twenty waiting writes, one commit")
        for id in 1...20 {
            if id % 5 == 0 {
                #expect(throws: Refused(id: id)) { try results[id]?.get() }
            } else {
                #expect(try results[id]?.get() == id * 10)
            }
        }
        let stored = try await pool.read { db in try Int.fetchAll(db, sql: "SELECT id FROM note ORDER BY id") }
        #expect(stored == (1...20).filter { $0 % 5 != 0 })
    }

    @Test("More writes than a batch holds commit in batches of the limit, oldest first, and every one is answered")
    func batchLimit() async throws {
        let (pool, commits, counter, release, holder) = try await Self.heldWriter()
        let count = GroupCommit.batchLimit + 36
        let writes = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for id in 1...count {
                    group.addTask {
                        try await commits.write { db in
                            try db.execute(sql: "INSERT INTO note (id, text) VALUES (?, ?)", arguments: [id, "note"])
                            return id
                        }
                    }
                }
                return try await group.reduce(into: Set<Int>()) { $0.insert($1) }
            }
        }
        try await eventually("\(count) writes waiting behind the held writer") { commits.waitingCount >= count }
        let before = counter.commits.withLock { $0 }
        release.signal()
        try await holder.value
        #expect(try await writes.value == Set(1...count))
        #expect(counter.commits.withLock { $0 } - before == 2)
        #expect(try await pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note") } == count)
    }

    @Test("A write whose batch cannot commit hears the failure and leaves nothing behind")
    func failedCommit() async throws {
        let pool = try Self.pool()
        let commits = GroupCommit(writer: pool)
        // A deferred foreign key is checked at commit: the write inserts a row that breaks it.
        try await pool.write { db in
            try db.execute(sql: """
                CREATE TABLE parent (id INTEGER PRIMARY KEY);
                CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
                """)
        }
        await #expect(throws: DatabaseError.self) {
            try await commits.write { db in
                try db.execute(sql: "INSERT INTO child (id, parent_id) VALUES (1, 42)")
                return 1
            }
        }
        #expect(try await pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM child") } == 0)
        // The writer is fine afterwards.
        #expect(try await commits.write { db in try db.execute(sql: "INSERT INTO parent (id) VALUES (42)"); return 2 } == 2)
    }
}
