import CSQLite
import Dispatch
import GRDB
import GroupieStorage
import Logging
import Synchronization

/// Copies the write-ahead log back into the database file on a connection and a thread of its
/// own, instead of in the commit that finds the log long.
///
/// SQLite's own automatic checkpoint runs inside a commit once the log holds 1,000 pages: that
/// commit then copies every page and flushes the database file before it returns, and every
/// write of its batch, and every write waiting behind it, waits too. Under `make bench`'s small
/// writes that happened every second or two, and set the writes' p99. Here the writer's commit
/// only notes the log's length (SQLite's WAL hook, which replaces the automatic checkpoint), and
/// past the same 1,000 pages a passive checkpoint runs on this connection while the writer goes
/// on: in WAL mode a checkpoint and a writer run side by side. A commit's durability does not
/// change: it is on disk once the log is flushed, as before; the checkpoint flushes the database
/// file (`synchronous=FULL` on its connection too) before the log may start over.
///
/// The log starts over only when a write begins with every page of it copied back. Under writes
/// without a pause the checkpoint beside the writer may keep finding new pages after it, so the
/// log could grow without end; past `writerLimit` pages the writer's commit checkpoints itself,
/// as SQLite's automatic checkpoint would, and the next write starts the log over.
final class WALCheckpointer: Sendable {
    /// SQLite's own threshold for its automatic checkpoint, in pages.
    static let threshold: Int32 = 1000
    /// Past this many pages (16 MiB of 4 KiB pages) the writer checkpoints in its own commit.
    static let writerLimit: Int32 = 4 * threshold
    private let path: String
    private let logger: Logger
    private let queue = DispatchQueue(label: "groupie.sqlite.checkpoint")
    /// The checkpoint's connection: opened at the first checkpoint, used on `queue` only.
    private let connection = Mutex<DatabaseQueue?>(nil)
    private let running = Atomic<Bool>(false)
    private let done = Atomic<Int>(0)
    private let doneByWriter = Atomic<Int>(0)

    init(path: String, logger: Logger) {
        self.path = path
        self.logger = logger
    }

    /// Checkpoints that have run to the end: for tests.
    var completed: Int { done.load(ordering: .acquiring) }
    /// Checkpoints the writer ran in its own commit, the log being past `writerLimit`: for tests.
    var completedByWriter: Int { doneByWriter.load(ordering: .acquiring) }

    /// Makes `db` (the writer) report each commit's log length here instead of checkpointing
    /// itself. The writer's `PRAGMA wal_autocheckpoint` reads 0 afterwards. `self` must outlive
    /// the connection: the pool's configuration keeps it.
    func install(on db: Database) {
        let hook: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 = { context, db, name, pages in
            guard let context else { return SQLITE_OK }
            let checkpointer = Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue()
            if pages >= WALCheckpointer.writerLimit {
                // SQLite's own automatic checkpoint does this in the same hook. A checkpoint
                // running beside the writer makes this one busy, and it is skipped.
                if sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil) == SQLITE_OK {
                    checkpointer.doneByWriter.add(1, ordering: .releasing)
                }
                return SQLITE_OK
            }
            checkpointer.logGrew(to: pages)
            return SQLITE_OK
        }
        sqlite3_wal_hook(db.sqliteConnection, hook, Unmanaged.passUnretained(self).toOpaque())
    }

    /// On the writer, after each commit: starts a checkpoint when the log is long and none runs.
    private func logGrew(to pages: Int32) {
        guard pages >= Self.threshold, running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return
        }
        queue.async { [self] in
            defer { running.store(false, ordering: .releasing) }
            do {
                try checkpoint()
                done.add(1, ordering: .releasing)
            } catch {
                logger.warning("the SQLite write-ahead log could not be copied back into \(path): \(error); the next commit past \(Self.threshold) pages tries again")
            }
        }
    }

    private func checkpoint() throws {
        try connection.withLock { connection in
            if connection == nil {
                var configuration = Configuration()
                configuration.label = "checkpoint"
                configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
                connection = try DatabaseQueue(path: path, configuration: configuration)
            }
            try connection!.inDatabase { db in _ = try db.checkpoint(.passive) }
        }
    }
}
