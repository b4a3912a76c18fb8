import _ConnectionPoolModule
import Foundation
import GroupieCore
import GroupieStorage
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

extension PostgresStore {
    // MARK: - The contract's odds and ends

    /// Callers at the same moment (a load balancer's checks and `/readyz`) share one check, and
    /// so one connection of the pool, instead of taking one each. A database that does not
    /// answer within a second is down for the caller; the check itself goes on, uncancelled, so
    /// that a busy machine, where a connection takes longer than a second to start, still gets
    /// its answer: a `SELECT 1` that succeeded after its callers stopped waiting, less than a
    /// second ago, answers the next caller.
    public func isReachable() async -> Bool {
        guard reachability.downReason == nil else { return false }
        let check = healthCheck.withLock { state -> Task<Bool, Never>? in
            if let answered = state.answered {
                state.answered = nil
                if ContinuousClock.now - answered < Self.healthPatience { return nil }
            }
            if let current = state.running { return current }
            let id = state.next
            state.next += 1
            let check = Task {
                let reachable = (try? await self.leased { try await $0.column("SELECT 1", as: Int.self, logger: self.logger) }) == [1]
                self.healthCheck.withLock { state in
                    if reachable { state.answered = .now }
                    if state.runningId == id { (state.running, state.runningId) = (nil, nil) }
                }
                return reachable
            }
            (state.running, state.runningId) = (check, id)
            return check
        }
        guard let check else { return true }
        let reachable = await withTaskGroup(of: Bool.self) { group in
            group.addTask { await check.value }
            group.addTask {
                try? await Task.sleep(for: Self.healthPatience)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if reachable {
            // Heard in time: the answer is this caller's, not one left for the next.
            healthCheck.withLock { $0.answered = nil }
        } else {
            reachability.suspect()
        }
        return reachable
    }

    /// How long a health check waits for PostgreSQL's answer, and how long an answer stands.
    static let healthPatience = Duration.seconds(1)

    public func counts() async throws -> RowCounts {
        try await read { connection in
            let row = try await connection.one("""
                SELECT (SELECT COUNT(*) FROM player), (SELECT COUNT(*) FROM play_group), (SELECT COUNT(*) FROM membership),
                       (SELECT COUNT(*) FROM photo)
                """, logger: logger)!
            return RowCounts(players: try row.get(0), groups: try row.get(1), memberships: try row.get(2), photos: try row.get(3))
        }
    }

    /// Holds a session advisory lock named for the job while `body` runs; another instance
    /// that asks meanwhile gets nil at once.
    public func exclusively<T: Sendable>(_ name: String, _ body: @Sendable () async throws -> T) async throws -> T? {
        // The lock's connection stays leased while `body` leases others: a few jobs at a time,
        // so that they cannot take the whole pool and wait on one another for a connection.
        await exclusiveSlots.acquire()
        do {
            let value = try await holdingLock("groupie:" + name, body)
            await exclusiveSlots.release()
            return value
        } catch {
            await exclusiveSlots.release()
            throw error
        }
    }

    func holdingLock<T: Sendable>(_ key: String, _ body: @Sendable () async throws -> T) async throws -> T? {
        try await leased { connection in
            guard try await connection.value("SELECT pg_try_advisory_lock(hashtext(\(key)))", as: Bool.self, logger: logger) == true else {
                return nil
            }
            do {
                let value = try await body()
                try await connection.run("SELECT pg_advisory_unlock(hashtext(\(key)))", logger: logger)
                return value
            } catch {
                _ = try? await connection.run("SELECT pg_advisory_unlock(hashtext(\(key)))", logger: logger)
                throw error
            }
        }
    }

    /// Sent on `eventChannel` with the events committed meanwhile (`PostgresAnnouncer`).
    public func announce(_ notice: StaffNotice) {
        announcer.announce(notice)
    }

    /// Listens on `eventChannel` on a connection of its own, for as long as the stream is read
    /// and the store is open; a lost connection is made again a second later, and `.resumed`
    /// says so. The listening is a child of the pool's task: closing the store ends it, and the
    /// stream with it.
    public func eventAnnouncements() -> AsyncStream<EventAnnouncement>? {
        let (stream, continuation) = AsyncStream.makeStream(of: EventAnnouncement.self, bufferingPolicy: .bufferingNewest(65_536))
        let (unread, stopReading) = AsyncStream.makeStream(of: Void.self)
        continuation.onTermination = { _ in stopReading.finish() }
        let pool = self.pool, logger = self.logger, reachability = self.reachability, instance = announcer.instance
        let spawned = pool.spawn {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await Self.listen(pool: pool, reachability: reachability, instance: instance, logger: logger, into: continuation) }
                // The stream is no longer read: the listening ends.
                group.addTask { for await _ in unread {} }
                _ = await group.next()
                group.cancelAll()
            }
            continuation.finish()
        }
        if !spawned { continuation.finish() }
        return stream
    }

    private static func listen(
        pool: PostgresPool, reachability: PostgresReachability, instance: String, logger: Logger,
        into continuation: AsyncStream<EventAnnouncement>.Continuation
    ) async {
        while !Task.isCancelled {
            // While PostgreSQL is known to be down, the pool is left alone until it is back.
            if reachability.downReason != nil {
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            do {
                try await pool.client.withConnection { connection in
                    try await connection.listen(on: Self.eventChannel) { notifications in
                        continuation.yield(.resumed)
                        for try await notification in notifications {
                            for (groupId, seq) in PostgresAnnouncer.announced(in: notification.payload) {
                                continuation.yield(.committed(groupId: groupId, seq: seq))
                            }
                            for notice in PostgresAnnouncer.notices(in: notification.payload, except: instance) {
                                continuation.yield(.staff(notice))
                            }
                        }
                    }
                }
            } catch {
                if Task.isCancelled { break }
                logger.warning("listening for events of other instances failed, again in a second: \(error)")
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    public func failures(of keys: [String], within window: TimeInterval, now: Date) async throws -> [String: [Date]] {
        try await leased { connection in
            var failures: [String: [Date]] = [:]
            for row in try await connection.rows(Prepared<RecentFailures>(keys, now.timeIntervalSince1970 - window), logger: logger) {
                failures[try row.get(0), default: []].append(Date(timeIntervalSince1970: try row.get(1)))
            }
            return failures
        }
    }

    enum RecentFailures: PreparedSQL {
        static let types: [PostgresDataType] = [.textArray, .float8]
        static let sql = "SELECT key, at FROM rate_failure WHERE key = ANY($1) AND at > $2 ORDER BY key, at"
    }

    /// Failures read as a JSON array of `[key, at]` (a join's, `JoinSeats`), oldest first by key.
    static func failures(from json: String) throws -> [String: [Date]] {
        struct Failure: Decodable {
            var key: String, at: Double
            init(from decoder: any Decoder) throws {
                var pair = try decoder.unkeyedContainer()
                key = try pair.decode(String.self)
                at = try pair.decode(Double.self)
            }
        }
        var failures: [String: [Date]] = [:]
        for failure in try JSONDecoder().decode([Failure].self, from: Data(json.utf8)) {
            failures[failure.key, default: []].append(Date(timeIntervalSince1970: failure.at))
        }
        return failures
    }

    public func recordFailure(of key: String, now: Date, window: TimeInterval) async throws {
        let cutoff = now.timeIntervalSince1970 - window
        try await write { connection in
            try await connection.run("INSERT INTO rate_failure (key, at) VALUES (\(key), \(now.timeIntervalSince1970))", logger: logger)
            try await connection.run("DELETE FROM rate_failure WHERE key = \(key) AND at <= \(cutoff)", logger: logger)
            // Keys that went quiet go now and then, after a day: no limit counts further back.
            if Int.random(in: 0..<100) == 0 {
                try await connection.run("DELETE FROM rate_failure WHERE at <= \(now.timeIntervalSince1970 - 86_400)", logger: logger)
            }
        }
    }

    public func forgetFailures(of key: String) async throws {
        try await write { connection in
            try await connection.run("DELETE FROM rate_failure WHERE key = \(key)", logger: logger)
        }
    }

    /// 128 random bits, as lowercase hex, as `SQLiteStore` makes them.
    static func newId() -> String { StoreIds.newId() }
}
