import CSQLite
import Foundation
import GRDB
import GroupieCore
import GroupieStorage
import Logging
import Synchronization

/// The game's state in SQLite. Every statement lives behind a method named for what it means,
/// so that another backend can come later behind the same methods.
public struct SQLiteStore: GroupieStore {
    let writer: any DatabaseWriter
    /// Concurrent writes share a transaction and its flush to disk.
    let commits: GroupCommit
    /// Rate-limit state: one process writes the file, so memory is where it is shared.
    let failureLog = FailureLog()
    /// Read-only connections for `lookup`; none for a database that is not a file.
    let lookups: LookupConnections?
    /// Copies the log back into the file beside the writer; none for a database that is not a file.
    let checkpointer: WALCheckpointer?
    /// Set once a request finds the file damaged: health answers `damaged` from then on.
    let damage = DamageMark()

    /// Opens (or creates) the database file in WAL mode with `synchronous=FULL` on every
    /// connection (GRDB's pool would set its writer to NORMAL, which in WAL mode may lose the
    /// last commits on a power cut), and migrates it to the current schema. The file and its
    /// `-wal` and `-shm` companions are readable by the service user only. The writer's commits
    /// leave checkpoints to a `WALCheckpointer`.
    public static func open(atPath path: String, logger: Logger = Logger(label: "groupie")) throws -> SQLiteStore {
        let checkpointer = WALCheckpointer(path: path, logger: logger)
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        // The pool's configuration keeps the checkpointer as long as the writer it serves.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // Swift's lowercasing, as PostgreSQL's lower() (SQLite's lowers ASCII only): the photo feed's search.
            db.add(function: .lowercase)
            if !db.configuration.readonly { checkpointer.install(on: db) }
        }
        let pool = try DatabasePool(path: path, configuration: configuration)
        // GRDB sets NORMAL on the pool's writer after `prepareDatabase`; set FULL again on
        // the writer itself and read both settings back, so that a changed default cannot pass
        // unseen: `synchronous` FULL (2), and no automatic checkpoint in the writer's commits.
        let (synchronous, autocheckpoint) = try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            return (try Int.fetchOne(db, sql: "PRAGMA synchronous"), try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint"))
        }
        guard synchronous == 2 else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "PRAGMA synchronous is \(synchronous ?? -1) on the writer, not FULL (2)")
        }
        guard autocheckpoint == 0 else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "PRAGMA wal_autocheckpoint is \(autocheckpoint ?? -1) on the writer: its commits would checkpoint")
        }
        // SQLite gives the `-wal` and `-shm` files the mode of the database file.
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            _ = chmod(file, 0o600)
        }
        return try SQLiteStore(writer: pool, lookups: LookupConnections(path: path), checkpointer: checkpointer, logger: logger)
    }

    /// Turns SQLite's memory statistics off for the process (see
    /// `groupie_sqlite_disable_memory_statistics`); returns whether SQLite took the setting.
    /// `serve` calls it first thing: SQLite takes it only before its first connection opens, and
    /// not while another thread may be opening one.
    @discardableResult
    public static func turnOffMemoryStatistics() -> Bool {
        groupie_sqlite_disable_memory_statistics() == 0
    }

    /// Whether SQLite keeps memory statistics in this process, as SQLite reports it: its count
    /// of memory in use stays 0 while they are off, and is never 0 with a connection open.
    public static var keepsMemoryStatistics: Bool { groupie_sqlite_memory_used() != 0 }

    /// The writer's `PRAGMA synchronous`, as SQLite reports it (2 is FULL): what the durability
    /// test and `make bench` read back.
    public func writerSynchronous() async throws -> Int {
        try await writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }

    /// `migrates` false: a file only read from, already at this version's schema. Each migration
    /// applied is logged with its number and what it does.
    init(
        writer: any DatabaseWriter, lookups: LookupConnections? = nil, checkpointer: WALCheckpointer? = nil, migrates: Bool = true,
        logger: Logger = Logger(label: "groupie")
    ) throws {
        self.writer = writer
        self.commits = GroupCommit(writer: writer)
        self.lookups = lookups
        self.checkpointer = checkpointer
        if migrates {
            let pending = try writer.read { db in try Self.pending(db) }
            try Self.migrator.migrate(writer)
            for migration in pending { logger.info("applied SQLite migration \(migration)") }
        }
    }

    public var backend: String { "sqlite" }

    /// One process writes the file: every job is exclusive already.
    public func exclusively<T: Sendable>(_ name: String, _ body: @Sendable () async throws -> T) async throws -> T? {
        try await body()
    }

    public func eventAnnouncements() -> AsyncStream<EventAnnouncement>? { nil }
    public func announce(_ notice: StaffNotice) {}

    /// A short read (a lookup by key, a bounded page) on the calling thread, through one of the
    /// lookup connections. GRDB's asynchronous read hands the work to a reader's queue and back,
    /// two thread switches that cost more than such a read itself: in `make bench` (small
    /// writes) a join or a choice made twice as many thread switches and took a fifth more CPU
    /// that way. A lookup never waits on the caller's thread: when every lookup connection is
    /// busy, or SQLite answers busy (in WAL mode a read waits only for the rare recovery of the
    /// WAL index), it reads asynchronously. (Waiting for one of the pool's readers instead would
    /// block the threads that the asynchronous reads need to hand their readers back: `make
    /// bench` (streams) hung that way.) Connections are opened lazily, on the first lookups.
    func lookup<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await lookup(snapshot: true, body)
    }

    /// A lookup that runs one statement. SQLite reads a statement from one snapshot by itself,
    /// so it runs outside a transaction: the BEGIN and COMMIT around it, and GRDB's switch to
    /// read-only and back, cost more than a lookup by key (a member's every request to its group
    /// makes one).
    func lookupOne<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await lookup(snapshot: false, body)
    }

    private func lookup<T: Sendable>(snapshot: Bool, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        if let lookups, let connection = lookups.take() {
            defer { lookups.give(connection) }
            do {
                return try snapshot ? LookupConnections.read(connection, body) : connection.inDatabase(body)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {}
        }
        return try await writer.read(body)
    }
}
