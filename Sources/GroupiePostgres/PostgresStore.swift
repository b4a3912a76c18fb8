import _ConnectionPoolModule
import Foundation
import GroupieCore
import GroupieStorage
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The game's state in PostgreSQL, shared by several Groupie instances: the same contract as
/// `SQLiteStore`, on postgres-nio's connection pool.
///
/// Every change runs in one transaction on one leased connection. A change to a group locks the
/// group's row first (`FOR UPDATE`), so that joins under the size cap and the group's event
/// sequence stay right whichever instance writes; a deadlock or serialization failure that this
/// can cause is retried. Events are announced on commit with `NOTIFY groupie_events`, carrying
/// only the group and the sequence number; `eventAnnouncements()` hears them.
public final class PostgresStore: GroupieStore {
    let pool: PostgresPool
    let logger: Logger
    let reachability: PostgresReachability
    let announcer: PostgresAnnouncer
    let exclusiveSlots = Slots(4)
    /// The health check under way, which every caller meanwhile shares.
    let healthCheck = Mutex(HealthCheck())

    /// The health check under way, if any, and when PostgreSQL last answered one that no caller
    /// waited for to the end.
    struct HealthCheck {
        var running: Task<Bool, Never>?
        var runningId: Int?
        var next = 0
        var answered: ContinuousClock.Instant?
    }

    /// The pool's client now: another replaces it when PostgreSQL is found down.
    var client: PostgresClient { pool.client }

    /// The channel of `NOTIFY`: a payload is lines of `<group id> <seq>`, each a group's newest
    /// event (`PostgresAnnouncer`).
    public static let eventChannel = "groupie_events"

    public var backend: String { "postgresql" }

    /// Connects to `url` (`postgres://user:password@host:port/database`, with libpq's `sslmode`
    /// and `sslrootcert` (`Encryption`), and `?host=/socket/folder` for a Unix socket) and
    /// migrates the database to the current schema; two instances starting at once take turns.
    /// A database that does not answer yet is waited for up to `patience` (`probe`); a command
    /// that ends after its job opens it without `ready` connections (`pool_min`).
    public static func open(url: String, logger: Logger, patience: Duration = .zero, ready: Bool = true) async throws -> PostgresStore {
        var url = try PostgresURL(url)
        if !ready { url.keepingNoneReady() }
        try await probe(url, logger: logger, patience: patience)
        let store = PostgresStore(url: url, logger: logger)
        await store.pool.hasStarted()  // The pool takes no lease before its `run` has begun.
        do {
            try await store.migrate()
        } catch {
            store.close()
            throw error
        }
        return store
    }

    /// One connection first, outside the pool: a URL that cannot work (nothing listening, no
    /// such database, a wrong password) fails at once, with PostgreSQL's own reason. The pool
    /// would keep trying for a minute, then say only that it gave up. A server that does not
    /// answer yet (`silence`: starting, or nothing listening yet) is tried again every half
    /// second for up to `patience`: `serve` waits a while for a PostgreSQL started beside it.
    static func probe(_ url: PostgresURL, logger: Logger, patience: Duration = .zero) async throws {
        let deadline = ContinuousClock.now + patience
        var told = false
        while true {
            do {
                return try await connectOnce(url, logger: logger)
            } catch {
                guard isSilence(error), ContinuousClock.now < deadline else { throw StoreUnavailable(Self.reason(error, url)) }
                if !told {
                    logger.warning("waiting for PostgreSQL at \(url.redacted) to answer: \(Self.reason(error, url))")
                    told = true
                }
                try await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    /// Why PostgreSQL at `url` does not answer (`isSilence`), or nil when it does.
    static func silence(_ url: PostgresURL, logger: Logger) async -> String? {
        do {
            try await connectOnce(url, logger: logger)
            return nil
        } catch {
            return isSilence(error) ? Self.reason(error, url) : nil
        }
    }

    /// One connection to `url`, outside the pool, closed at once.
    private static func connectOnce(_ url: PostgresURL, logger: Logger) async throws {
        let connection = try await PostgresConnection.connect(configuration: try url.connection(), id: 0, logger: logger)
        try? await connection.close()
    }

    /// Whether a failed connection means that PostgreSQL does not answer: no connection made (a
    /// host whose name does not resolve included: an orchestrator may publish it only once the
    /// database runs), a connection closed before the server said anything, or a refusal while
    /// the server starts or shuts down (SQLSTATE class 57) or from a pooler that cannot reach it
    /// (class 08, as PgBouncer gives). Anything the other end said is an answer, and trying again
    /// would not change it: a refusal of the server's own accord (too many clients, a wrong
    /// password, no such database), a server without the TLS the URL requires, a certificate that
    /// fails its check, a message that breaks PostgreSQL's protocol.
    static func isSilence(_ error: any Error) -> Bool {
        if isTLSRefusal(error) { return false }
        guard let error = error as? PSQLError else { return true }
        if let state = error.serverInfo?[.sqlState] { return state.hasPrefix("57") || state.hasPrefix("08") }
        switch error.code {
        case .sslUnsupported, .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest, .messageDecodingFailure,
            .unexpectedBackendMessage, .unsupportedAuthMechanism, .authMechanismRequiresPassword, .saslError:
            return false
        default:
            return error.underlying.map { !isTLSRefusal($0) } ?? true
        }
    }

    /// A TLS handshake the server took part in and that failed on what it said: a certificate that
    /// fails its check, or a protocol the two do not share. A connection that ends in the middle
    /// of the handshake (a server shutting down ends the connections it is still starting
    /// without a word) is not one.
    static func isTLSRefusal(_ error: any Error) -> Bool {
        if error is NIOSSLExtraError { return true }
        guard let error = error as? NIOSSLError else { return false }
        switch error {
        case .handshakeFailed(.sslError(let stack)):
            return stack.contains { $0 != .eofDuringHandshake && $0 != .eofDuringAdditionalCertficiateChainValidation }
        case .handshakeFailed(.invalidSNIName), .unableToValidateCertificate, .noCertificateToValidate:
            return true
        default:
            return false
        }
    }

    /// What went wrong, in words an operator can act on: PostgreSQL's own message (`database
    /// "x" does not exist`, `password authentication failed for user "y"`), or why no connection
    /// was made (`127.0.0.1:5432: Connection refused`, for each address tried). postgres-nio's
    /// errors describe themselves generically.
    public static func reason(_ error: any Error) -> String {
        if let unavailable = error as? StoreUnavailable { return unavailable.reason }
        if let failure = error as? NIOConnectionError {
            if !failure.connectionErrors.isEmpty {
                // Each address tried, as the system said: "127.0.0.1:5432: Connection refused".
                return failure.connectionErrors.map { "\(Self.address($0.target, port: failure.port)): \(Self.reason($0.error))" }
                    .joined(separator: "; ")
            }
            if let unknown = (failure.dnsAError ?? failure.dnsAAAAError) as? SocketAddressError.UnknownHost {
                return "\(unknown.host): \(unknown.errorDescription)"
            }
        }
        if let failure = error as? IOError { return String(cString: strerror(failure.errnoCode)) }
        if isTLSRefusal(error) { return tlsReason(error) }
        guard let error = error as? PSQLError else { return String(describing: error) }
        if let message = error.serverInfo?[.message] {
            return message + (error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? "")
        }
        switch error.code {
        case .sslUnsupported:
            return "the server does not accept TLS, which the URL's sslmode requires (ssl = on in postgresql.conf turns it on)"
        case .serverClosedConnection where error.underlying == nil:
            // A proxy whose database is down does this, and so does a server of another
            // protocol on the port: PostgreSQL says why when it ends a connection.
            return "the connection was closed before PostgreSQL answered"
        default:
            break
        }
        if let underlying = error.underlying { return Self.reason(underlying) }
        return "\(error.code)"
    }

    /// `reason`, with the path of the Unix socket that could not be reached: the system's words
    /// alone ("No such file or directory") do not say which.
    static func reason(_ error: any Error, _ url: PostgresURL) -> String {
        let said = reason(error)
        guard let socket = url.socketPath else { return said }
        var underlying: any Error = error
        while let wrapped = (underlying as? PSQLError)?.underlying { underlying = wrapped }
        return underlying is IOError ? "\(socket): \(said)" : said
    }

    /// Why a TLS handshake failed, in the words of the check that failed.
    private static func tlsReason(_ error: any Error) -> String {
        if let failure = error as? NIOSSLExtraError, failure == .failedToValidateHostname || failure == .serverHostnameImpossibleToMatch {
            return "the server's TLS certificate is not made out to this host (sslmode=verify-full checks that)"
        }
        let said = String(describing: error)
        if said.contains("CERTIFICATE_VERIFY_FAILED") {
            // BoringSSL says no more than this: the certificate may also have expired.
            return "the server's TLS certificate failed its check: not signed by the authority in sslrootcert, or out of date"
        }
        return "the TLS handshake failed: \(said)"
    }

    /// `127.0.0.1:5432`, `[::1]:5432`, or a Unix socket's path.
    static func address(_ address: SocketAddress, port: Int) -> String {
        switch address {
        case .v4: "\(address.ipAddress ?? "?"):\(address.port ?? port)"
        case .v6: "[\(address.ipAddress ?? "?")]:\(address.port ?? port)"
        case .unixDomainSocket: address.pathname ?? "\(address)"
        }
    }

    init(url: PostgresURL, logger: Logger) {
        let announcer = PostgresAnnouncer(logger: logger)
        let pool = PostgresPool(configuration: url.configuration, logger: logger) { [weak announcer] pool in
            await announcer?.run(pool: pool)
        }
        self.pool = pool
        self.logger = logger
        self.announcer = announcer
        reachability = PostgresReachability(
            url: url, logger: logger, onDown: { pool.replace() }, onUp: { pool.replace() }, onStuck: { pool.replace(only: $0) }, spawn: { pool.spawn($0) }
        )
    }

    /// Ends the pool's connections; the store cannot be used after.
    public func close() {
        reachability.close()
        pool.close()
    }

    /// Closes the store and returns once the pool's connections and the work beside them (the
    /// announcements still waiting) have ended.
    public func shutdown() async {
        reachability.close()
        await pool.shutdown()
    }

    deinit {
        reachability.close()
        pool.close()
    }

    // MARK: - Migrations

    /// Any constant shared by every instance: the advisory lock migrations hold.
    static let migrationLock: Int64 = 0x67_72_6F_75_70_69_65

    /// Applies the migrations the database has not seen, each in its own transaction, while
    /// holding an advisory lock: a second instance starting at the same moment waits, then finds
    /// nothing left to do. Returns the versions applied.
    @discardableResult
    public func migrate() async throws -> [Int] {
        try await leased { connection in
            try await connection.run("SELECT pg_advisory_lock(\(Self.migrationLock))", logger: logger)
            do {
                let applied = try await applyMigrations(connection)
                try await connection.run("SELECT pg_advisory_unlock(\(Self.migrationLock))", logger: logger)
                return applied
            } catch {
                _ = try? await connection.run("SELECT pg_advisory_unlock(\(Self.migrationLock))", logger: logger)
                throw error
            }
        }
    }

    /// The migrations this version would apply to the database at `url`, in order ("12 …": its
    /// number and what it does), read without changing anything.
    public static func pendingMigrations(url: String, logger: Logger, patience: Duration = .zero) async throws -> [String] {
        var url = try PostgresURL(url)
        url.keepingNoneReady()
        try await probe(url, logger: logger, patience: patience)
        let store = PostgresStore(url: url, logger: logger)
        await store.pool.hasStarted()
        defer { store.close() }
        let applied = try await store.leased { connection in
            guard try await connection.column("SELECT to_regclass('groupie_migration') IS NOT NULL", as: Bool.self, logger: logger).first == true else {
                return Set<Int>()
            }
            return Set(try await connection.column("SELECT version FROM groupie_migration", as: Int.self, logger: logger))
        }
        return PostgresSchema.migrations.filter { !applied.contains($0.version) }.map { "\($0.version) \($0.name)" }
    }

    /// The migrations applied so far, for `groupie migrate --status` and the tests.
    public func appliedMigrations() async throws -> [Int] {
        try await leased { try await $0.column("SELECT version FROM groupie_migration ORDER BY version", as: Int.self, logger: logger) }
    }

    // MARK: - Transactions

    /// Runs `body` in a transaction, committed when it returns and rolled back when it throws
    /// (its error comes out as it was). A deadlock or serialization failure, which concurrent
    /// changes of the same groups can cause, runs it again, a few times.
    func write<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await announcer.announcing { try await transaction("BEGIN", body) }
            } catch let error as PSQLError where Self.isRetryable(error) {
                let state = error.serverInfo?[.sqlState] ?? "?"
                guard attempt < Self.attempts else { throw StoreBusy("\(attempt) tries ended in \(state)") }
                logger.debug("PostgreSQL transaction retried after \(state)")
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(5 * attempt))))
            } catch is ReadAgain {
                guard attempt < Self.attempts else { throw StoreBusy("\(attempt) tries found what they read changed") }
                logger.debug("PostgreSQL transaction retried: what it read changed while it waited")
            }
        }
    }

    /// Tries of a write that meets other changes of its rows, before it gives up (`StoreBusy`).
    static let attempts = 8

    /// Runs `body`, one statement, on a leased connection, outside a transaction.
    func once<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await leased(body)
    }

    /// Runs `body` on a connection of the pool, or refuses at once while PostgreSQL is known to be
    /// down (`PostgresReachability`). A wait for the connection and a failure for want of one are
    /// told to the reachability, which then tries a connection of its own.
    func leased<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        // The pool first: one ended as PostgreSQL went down is seen to be down below.
        let client = pool.client
        if let reason = reachability.downReason { throw StoreUnavailable(reason) }
        let waiter = reachability.waits()
        var waiting = true
        do {
            let value = try await client.withConnection { connection in
                reachability.leased(waiter)
                waiting = false
                return try await body(connection)
            }
            reachability.served()
            return value
        } catch {
            if waiting { reachability.leased(waiter) }
            if let reason = reachability.downReason, waiting || Self.isUnreachable(error) {
                // The pool this request waited on was ended when PostgreSQL was found down.
                throw StoreUnavailable(reason)
            }
            // Ended for a new one, as PostgreSQL answers again while the pool could not connect.
            if waiting, pool.client !== client { return try await leased(body) }
            guard let unavailable = Self.unavailable(error) else { throw error }
            reachability.suspect(stuckPool: (error as? ConnectionPoolError) == .connectionCreationCircuitBreakerTripped ? ObjectIdentifier(client) : nil)
            throw unavailable
        }
    }

    /// The rows of one statement, on a leased connection, outside a transaction.
    @discardableResult
    func statement(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await once { try await $0.run(query, logger: logger).collect() }
    }

    /// Runs `body` on one snapshot of the database: reads of several statements agree.
    func read<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    private func transaction<T: Sendable>(_ begin: PostgresQuery, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await leased { connection in
            try await connection.run(begin, logger: logger)
            let value: T
            do {
                value = try await body(connection)
            } catch {
                _ = try? await connection.run("ROLLBACK", logger: logger)
                throw error
            }
            try await connection.run("COMMIT", logger: logger)
            return value
        }
    }

    static func isRetryable(_ error: PSQLError) -> Bool {
        // serialization_failure and deadlock_detected. A unique key that a concurrent insert
        // takes (a join code, a tally row) is met by the statement's own ON CONFLICT instead;
        // but a player's one membership in use, which a join of theirs made meanwhile, says
        // that the player's group changed since it was read: read again.
        let state = error.serverInfo?[.sqlState] ?? ""
        return ["40001", "40P01"].contains(state)
            || (state == "23505" && error.serverInfo?[.constraintName] == "membership_one_active_per_player")
    }
}

/// Under `serve`'s service group, started first and stopped last: once the server and every
/// service that writes have stopped, the pool's connections and its announcer end, and the
/// process exits only after. An announcement not sent by then is made good on the other
/// instances by their relay's look at the newest events (`EventRelay`).
extension PostgresStore: Service {
    public func run() async throws {
        try? await gracefulShutdown()
        await shutdown()
    }
}
