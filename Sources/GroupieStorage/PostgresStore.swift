import Foundation
import GroupieCore
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization
import _ConnectionPoolModule

/// The game's state in PostgreSQL, shared by several Groupie instances: the same contract as
/// `GroupieDatabase`, on postgres-nio's connection pool.
///
/// Every change runs in one transaction on one leased connection. A change to a group locks the
/// group's row first (`FOR UPDATE`), so that joins under the size cap and the group's event
/// sequence stay right whichever instance writes; a deadlock or serialization failure that this
/// can cause is retried. Events are announced on commit with `NOTIFY groupie_events`, carrying
/// only the group and the sequence number; `eventAnnouncements()` hears them.
public final class PostgresStore: GroupieStore {
    private let pool: PostgresPool
    let logger: Logger
    let reachability: PostgresReachability
    private let exclusiveSlots = Slots(4)

    /// The pool's client now: another replaces it when PostgreSQL is found down.
    var client: PostgresClient { pool.client }

    /// The channel of `NOTIFY`: a payload is `<group id> <seq>`, the group's newest event.
    public static let eventChannel = "groupie_events"

    public var backend: String { "postgresql" }

    /// Connects to `url` (`postgres://user:password@host:port/database`, with libpq's `sslmode`
    /// and `sslrootcert` (`Encryption`), and `?host=/socket/folder` for a Unix socket) and
    /// migrates the database to the current schema; two instances starting at once take turns.
    /// A database that does not answer yet is waited for up to `patience` (`probe`).
    public static func open(url: String, logger: Logger, patience: Duration = .zero) async throws -> PostgresStore {
        let url = try PostgresURL(url)
        try await probe(url, logger: logger, patience: patience)
        let store = PostgresStore(url: url, logger: logger)
        // The pool takes no lease before its `run` has begun.
        await store.pool.hasStarted()
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
                guard isSilence(error), ContinuousClock.now < deadline else { throw PostgresStoreError.unreachable(Self.reason(error, url)) }
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
        let pool = PostgresPool(configuration: url.configuration, logger: logger)
        self.pool = pool
        self.logger = logger
        reachability = PostgresReachability(url: url, logger: logger, onDown: { pool.replace() }, onUp: { pool.replace() })
    }

    /// Ends the pool's connections; the store cannot be used after.
    public func close() {
        reachability.close()
        pool.close()
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

    private func applyMigrations(_ connection: PostgresConnection) async throws -> [Int] {
        try await connection.run("""
            CREATE TABLE IF NOT EXISTS groupie_migration (
                version bigint PRIMARY KEY, name text NOT NULL, applied_at double precision NOT NULL
            )
            """, logger: logger)
        let done = Set(try await connection.column("SELECT version FROM groupie_migration", as: Int.self, logger: logger))
        if let unknown = done.max(), unknown > PostgresSchema.migrations.map({ $0.version }).max() ?? 0 {
            throw PostgresStoreError.schemaTooNew(version: unknown)
        }
        var applied: [Int] = []
        for migration in PostgresSchema.migrations where !done.contains(migration.version) {
            try await connection.run("BEGIN", logger: logger)
            do {
                for statement in PostgresSchema.statements(of: migration.sql) {
                    try await connection.run(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.run("""
                    INSERT INTO groupie_migration (version, name, applied_at) VALUES (\(migration.version), \(migration.name), \(Date().timeIntervalSince1970))
                    """, logger: logger)
                try await connection.run("COMMIT", logger: logger)
            } catch {
                _ = try? await connection.run("ROLLBACK", logger: logger)
                throw error
            }
            logger.info("applied PostgreSQL migration \(migration.version): \(migration.name)")
            applied.append(migration.version)
        }
        return applied
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
                return try await transaction("BEGIN", body)
            } catch let error as PSQLError where attempt < 8 && Self.isRetryable(error) {
                logger.debug("PostgreSQL transaction retried after \(error.serverInfo?[.sqlState] ?? "?")")
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(5 * attempt))))
            }
        }
    }

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
        if let reason = reachability.downReason { throw PostgresStoreError.unreachable(reason) }
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
                throw PostgresStoreError.unreachable(reason)
            }
            if Self.isUnreachable(error) { reachability.suspect() }
            throw error
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
        // takes (a join code, a tally row) is met by the statement's own ON CONFLICT instead.
        ["40001", "40P01"].contains(error.serverInfo?[.sqlState] ?? "")
    }

    // MARK: - The contract's odds and ends

    public func isReachable() async -> Bool {
        guard reachability.downReason == nil else { return false }
        let reachable = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                (try? await self.leased { try await $0.column("SELECT 1", as: Int.self, logger: self.logger) }) == [1]
            }
            // A load balancer asks often: a database that does not answer within a second is down.
            group.addTask {
                try? await Task.sleep(for: .seconds(1))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if !reachable { reachability.suspect() }
        return reachable
    }

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

    private func holdingLock<T: Sendable>(_ key: String, _ body: @Sendable () async throws -> T) async throws -> T? {
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

    /// Listens on `eventChannel` on a connection of its own, for as long as the stream is read;
    /// a lost connection is made again a second later, and `.resumed` says so.
    public func eventAnnouncements() -> AsyncStream<EventAnnouncement>? {
        let (stream, continuation) = AsyncStream.makeStream(of: EventAnnouncement.self, bufferingPolicy: .bufferingNewest(65_536))
        let pool = self.pool, logger = self.logger, reachability = self.reachability
        let listening = Task {
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
                                let parts = notification.payload.split(separator: " ")
                                guard parts.count == 2, let seq = Int(parts[1]) else { continue }
                                continuation.yield(.committed(groupId: String(parts[0]), seq: seq))
                            }
                        }
                    }
                } catch {
                    if Task.isCancelled { break }
                    logger.warning("listening for events of other instances failed, again in a second: \(error)")
                }
                try? await Task.sleep(for: .seconds(1))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in listening.cancel() }
        return stream
    }

    public func failures(of key: String, within window: TimeInterval, now: Date) async throws -> [Date] {
        try await leased { connection in
            try await connection.rows(Prepared<RecentFailures>(key, now.timeIntervalSince1970 - window), logger: logger).map {
                Date(timeIntervalSince1970: try $0.get(0))
            }
        }
    }

    enum RecentFailures: PreparedSQL {
        static let types: [PostgresDataType] = [.text, .float8]
        static let sql = "SELECT at FROM rate_failure WHERE key = $1 AND at > $2 ORDER BY at"
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

    /// 128 random bits, as lowercase hex, as `GroupieDatabase` makes them.
    static func newId() -> String { GroupieDatabase.newId() }
}

/// A counting semaphore for tasks: `acquire` waits while every slot is taken.
actor Slots {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) {
        free = count
    }

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}

public enum PostgresStoreError: Error, CustomStringConvertible, Equatable {
    case invalidURL(String)
    case schemaTooNew(version: Int)
    case noFreeJoinCode
    /// Some of the groups to import are in the database already.
    case alreadyImported(groups: Int)
    /// No connection could be made; the reason as `PostgresStore.reason` gives it.
    case unreachable(String)

    public var description: String {
        switch self {
        case .invalidURL(let why): "The PostgreSQL URL cannot be used: \(why)"
        case .schemaTooNew(let version):
            "The database has migration \(version), newer than this Groupie knows: upgrade Groupie before starting it on this database."
        case .noFreeJoinCode: "no free join code after 30 attempts"
        case .alreadyImported(let groups):
            "The PostgreSQL database already holds \(groups) of these groups: this database, or this venue's export, was imported before."
        case .unreachable(let reason): "no connection to PostgreSQL: \(reason)"
        }
    }
}

/// A `postgres://` URL, read the way libpq reads one, as far as Groupie needs.
public struct PostgresURL: Sendable {
    public let configuration: PostgresClient.Configuration
    private let endpoint: Endpoint
    private enum Endpoint: Sendable {
        case socket(String)
        case tcp(host: String, port: Int, encryption: Encryption)
    }
    /// The URL's `sslmode` and `sslrootcert`, as libpq (16) reads them.
    enum Encryption: Hashable, Sendable {
        /// No TLS (`disable`).
        case disable
        /// TLS when the server offers it (`prefer`, the default, and `allow`), its certificate not
        /// checked: PostgreSQL's own packages serve a self-signed one.
        case prefer
        /// TLS or no connection (`require`), the certificate not checked.
        case require
        /// TLS with a certificate signed by an authority in `roots`, a PEM file: `verify-ca`, and
        /// `require` with `sslrootcert`, as libpq does.
        case verifyAuthority(roots: String)
        /// TLS with a certificate made out to the URL's host and signed by an authority in
        /// `roots`, or by one of the system's trust roots when nil (`sslrootcert=system`).
        case verifyHost(roots: String?)

        /// libpq's rules: a check needs an authority to check against, and the system's trust
        /// roots, which vouch for anyone's public name, only with the host name checked too
        /// (`sslrootcert=system` makes `verify-full` the default and refuses weaker modes).
        init(mode given: String?, rootCertificate: String?) throws {
            let system = rootCertificate == "system"
            let file = system ? nil : rootCertificate.flatMap { $0.isEmpty ? nil : $0 }
            let mode = given ?? (system ? "verify-full" : "prefer")
            if system, mode != "verify-full" {
                throw PostgresStoreError.invalidURL("sslrootcert=system trusts any public authority, so it needs sslmode=verify-full, not '\(mode)'")
            }
            switch mode {
            case "disable": self = .disable
            case "prefer", "allow": self = .prefer
            case "require": self = file.map { .verifyAuthority(roots: $0) } ?? .require
            case "verify-ca":
                guard let file else {
                    throw PostgresStoreError.invalidURL("sslmode=verify-ca needs sslrootcert=/path/to/authority.crt, the authority to check the server's certificate against")
                }
                self = .verifyAuthority(roots: file)
            case "verify-full":
                guard file != nil || system else {
                    throw PostgresStoreError.invalidURL("sslmode=verify-full needs sslrootcert=/path/to/authority.crt (or sslrootcert=system for the system's trust roots)")
                }
                self = .verifyHost(roots: file)
            case let mode:
                throw PostgresStoreError.invalidURL("sslmode must be disable, allow, prefer, require, verify-ca or verify-full, not '\(mode)'")
            }
            if let roots = self.roots {
                // Read now, so that a file that is no authority stops Groupie before it connects.
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: roots, isDirectory: &isFolder), !isFolder.boolValue,
                    FileManager.default.isReadableFile(atPath: roots)
                else { throw PostgresStoreError.invalidURL("sslrootcert \(roots) is not a file Groupie can read") }
                guard let certificates = try? NIOSSLCertificate.fromPEMFile(roots), !certificates.isEmpty else {
                    throw PostgresStoreError.invalidURL("sslrootcert \(roots) holds no certificate in PEM (-----BEGIN CERTIFICATE-----)")
                }
            }
        }

        /// The file of the authorities to check against, where there is one.
        var roots: String? {
            switch self {
            case .verifyAuthority(let roots): roots
            case .verifyHost(let roots): roots
            default: nil
            }
        }

        /// The client's TLS settings, nil for none.
        var configuration: TLSConfiguration? {
            var tls = TLSConfiguration.makeClientConfiguration()
            switch self {
            case .disable:
                return nil
            case .prefer, .require:
                tls.certificateVerification = .none
            case .verifyAuthority:
                tls.certificateVerification = .noHostnameVerification
            case .verifyHost:
                tls.certificateVerification = .fullVerification
            }
            if let roots { tls.trustRoots = .file(roots) }
            return tls
        }
    }
    /// The path of the Unix socket, for a URL that names one.
    var socketPath: String? {
        if case .socket(let path) = endpoint { return path }
        return nil
    }

    /// The URL without its password: what logs and `/readyz` may show.
    public let redacted: String

    public static func isPostgres(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// The URL's query parameters Groupie reads. libpq refuses a parameter it does not know, and
    /// so does Groupie, a parameter it does not act on: a client certificate (`sslcert`) left
    /// unread would be a check the operator believes in and nobody makes.
    static let parameters = ["host", "port", "user", "password", "dbname", "sslmode", "sslrootcert", "connect_timeout", "application_name", "pool"]

    /// libpq's parameters that Groupie takes and leaves unread, with the values for which that
    /// changes nothing (nil: any value): TCP tuning, and the modes that only ask for what a
    /// connection does anyway. `channel_binding=require`, `gssencmode=require` or
    /// `target_session_attrs=read-write` ask for a check Groupie does not make, and are refused.
    static let harmless: [String: Set<String>?] = [
        "channel_binding": ["disable", "prefer"], "gssencmode": ["disable", "prefer"], "target_session_attrs": ["any"],
        "keepalives": nil, "keepalives_idle": nil, "keepalives_interval": nil, "keepalives_count": nil, "tcp_user_timeout": nil,
        "fallback_application_name": nil, "client_encoding": ["UTF8", "utf8", "UTF-8", "utf-8"],
    ]

    /// Where Debian's PostgreSQL keeps its Unix socket, and so where libpq looks for one when a
    /// URL names no host (`postgres:///groupie`).
    static let defaultSocketFolder = "/var/run/postgresql"

    /// Reads `postgres://user:password@host:port/database?parameters` as libpq does: the
    /// parameters `host`, `port`, `user`, `password` and `dbname` override the URL's own parts; a
    /// `host` that starts with `/` is the folder of a Unix socket, and no host at all means
    /// Debian's socket folder; no user means the user Groupie runs as.
    public init(_ text: String) throws {
        guard Self.isPostgres(text), let components = URLComponents(string: text) else {
            throw PostgresStoreError.invalidURL("it must look like postgres://user:password@host:5432/database")
        }
        // Each parameter as given, an empty value included: as to libpq, an empty parameter
        // overrides the URL's part and then means the default (`?host=` is the local socket).
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            if let entry = Self.harmless[item.name] {
                if let accepted = entry, !accepted.contains(value) {
                    throw PostgresStoreError.invalidURL("Groupie cannot honour \(item.name)=\(value); leave it out or use \(accepted.sorted().joined(separator: " or "))")
                }
                continue
            }
            guard Self.parameters.contains(item.name) else {
                throw PostgresStoreError.invalidURL(
                    "Groupie does not read the parameter '\(item.name)'; it reads \(Self.parameters.map { "'\($0)'" }.joined(separator: ", "))"
                )
            }
            query[item.name] = value
        }
        // A parameter, else the URL's own part (decoded once: `URLComponents.user` and `.path`
        // are decoded already, and decoding again would turn a password's "%2541" into "A"); nil
        // for the default.
        func given(_ name: String, _ part: String? = nil) -> String? {
            let value = query[name] ?? part.map { $0.removingPercentEncoding ?? $0 }
            return value.flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let user = given("user", components.percentEncodedUser) ?? Self.systemUser else {
            throw PostgresStoreError.invalidURL("it names no user (postgres://USER@host/database)")
        }
        let password = given("password", components.percentEncodedPassword)
        let database = given("dbname", String(components.percentEncodedPath.dropFirst()))
        let port: Int
        if let text = given("port") {
            guard let number = Int(text) else {
                throw PostgresStoreError.invalidURL(text.contains(",") ? "Groupie connects to one port, not several ('\(text)')" : "the port must be a number, not '\(text)'")
            }
            port = number
        } else if query["port"] != nil {
            port = 5432
        } else {
            port = components.port ?? 5432
        }
        guard (1...65535).contains(port) else { throw PostgresStoreError.invalidURL("the port must be from 1 to 65535, not \(port)") }
        // `[::1]`: an IPv6 address without the brackets that set it apart in a URL.
        var host = given("host", components.percentEncodedHost) ?? Self.defaultSocketFolder
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.contains(",") else {
            throw PostgresStoreError.invalidURL("Groupie connects to one host, not several ('\(host)'); put a proxy or a virtual address before them")
        }
        var configuration: PostgresClient.Configuration
        // Read for every URL, so that a mistake stops Groupie even where it is not used: over a
        // Unix socket, libpq uses no TLS.
        let encryption = try Encryption(mode: given("sslmode"), rootCertificate: given("sslrootcert"))
        if host.hasPrefix("/") {
            let path = "\(host)/.s.PGSQL.\(port)"
            endpoint = .socket(path)
            configuration = .init(unixSocketPath: path, username: user, password: password, database: database)
        } else {
            endpoint = .tcp(host: host, port: port, encryption: encryption)
            let tls: PostgresClient.Configuration.TLS = if let settings = encryption.configuration {
                encryption == .prefer ? .prefer(settings) : .require(settings)
            } else {
                .disable
            }
            configuration = .init(host: host, port: port, username: user, password: password, database: database, tls: tls)
        }
        if let text = given("pool") {
            guard let pool = Int(text), (1...1000).contains(pool) else {
                throw PostgresStoreError.invalidURL("pool must be a number of connections from 1 to 1000, not '\(text)'")
            }
            configuration.options.maximumConnections = pool
        } else {
            configuration.options.maximumConnections = 20
        }
        // At least 2 seconds, as libpq has it. libpq waits for ever without one (or with 0); a
        // server that hangs on a connection would hang Groupie's start and its pool, so 0 and
        // none mean 5 seconds here.
        if let text = given("connect_timeout") {
            guard let seconds = Int(text), seconds >= 0 else {
                throw PostgresStoreError.invalidURL("connect_timeout must be a number of seconds, not '\(text)'")
            }
            configuration.options.connectTimeout = .seconds(seconds == 0 ? 5 : max(2, seconds))
        } else {
            configuration.options.connectTimeout = .seconds(5)
        }
        // Group contents come as JSON, whose numbers must keep every digit of a float8 (the
        // default from PostgreSQL 12, unless a database or role says otherwise).
        configuration.options.additionalStartupParameters = [("extra_float_digits", "3")]
            + (given("application_name").map { [("application_name", $0)] } ?? [])
        self.configuration = configuration
        var shown = components
        if shown.password != nil { shown.password = "***" }
        if let items = shown.queryItems, items.contains(where: { $0.name == "password" }) {
            shown.queryItems = items.map { $0.name == "password" ? URLQueryItem(name: "password", value: "***") : $0 }
        }
        redacted = shown.string ?? "postgres://"
    }

    /// The name of the user Groupie runs as: libpq's user when a URL names none. `getpwuid_r`,
    /// since URLs are read on any thread.
    static var systemUser: String? {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(geteuid(), &entry, &buffer, buffer.count, &found) == 0, found != nil, let name = entry.pw_name else { return nil }
        return String(cString: name)
    }

    /// The TLS context of each encryption, made once: a context made reads its trust roots again,
    /// and a connection is tried every half second while PostgreSQL is down.
    private static let madeTLS = Mutex<[Encryption: NIOSSLContext]>([:])

    private static func clientTLS(_ encryption: Encryption, _ configuration: TLSConfiguration) throws -> NIOSSLContext {
        try madeTLS.withLock { made in
            if let context = made[encryption] { return context }
            let context = try NIOSSLContext(configuration: configuration)
            made[encryption] = context
            return context
        }
    }

    /// The configuration of one connection to the same server, database and user as the pool's.
    func connection() throws -> PostgresConnection.Configuration {
        var connection: PostgresConnection.Configuration
        switch endpoint {
        case .socket(let path):
            connection = .init(unixSocketPath: path, username: configuration.username, password: configuration.password, database: configuration.database)
        case .tcp(let host, let port, let encryption):
            let tls: PostgresConnection.Configuration.TLS = if let configuration = encryption.configuration {
                encryption == .prefer
                    ? .prefer(try Self.clientTLS(encryption, configuration)) : .require(try Self.clientTLS(encryption, configuration))
            } else {
                .disable
            }
            connection = .init(host: host, port: port, username: configuration.username, password: configuration.password, database: configuration.database, tls: tls)
        }
        connection.options.connectTimeout = .seconds(Int64(configuration.options.connectTimeout.components.seconds))
        connection.options.additionalStartupParameters = configuration.options.additionalStartupParameters
        return connection
    }
}

// MARK: - Reading rows

extension PostgresConnection {
    /// `query`, refused at once when the connection has closed. postgres-nio 1.33.2 hands a
    /// query to the connection's channel without a way to hear that the channel refused it, and
    /// answers it from the channel's handler, which a closed channel no longer has: a query on a
    /// closed connection waits for ever. That is where a restart of the database left Groupie: the
    /// ROLLBACK after a statement that failed with the connection, or the unlock at the end of a
    /// retention sweep, hung and kept their connection, the sweep's slot and a shutdown waiting.
    /// Every statement of the store goes through here (or `rows` of a prepared statement, which
    /// checks the same).
    @discardableResult
    func run(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        try ensureOpen()
        return try await self.query(query, logger: logger)
    }

    /// Throws `PostgresConnectionClosed` when the connection has closed.
    func ensureOpen() throws {
        if isClosed { throw PostgresConnectionClosed() }
    }

    /// Every row of the query, for reading by position.
    func rows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRandomAccessRow] {
        try await run(query, logger: logger).collect().map { $0.makeRandomAccess() }
    }

    /// The first row of the query, if any.
    func one(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRandomAccessRow? {
        try await rows(query, logger: logger).first
    }

    /// The first column of the first row, if any row; an SQL NULL is nil too.
    func value<T: PostgresDecodable>(_ query: PostgresQuery, as type: T.Type = T.self, logger: Logger) async throws -> T? {
        guard let cell = try await one(query, logger: logger)?[0], cell.bytes != nil else { return nil }
        return try cell.decode(T.self)
    }

    /// The first column of every row.
    func column<T: PostgresDecodable>(_ query: PostgresQuery, as type: T.Type = T.self, logger: Logger) async throws -> [T] {
        try await rows(query, logger: logger).map { try $0.get(0) }
    }
}

extension PostgresRandomAccessRow {
    func get<T: PostgresDecodable>(_ index: Int, as type: T.Type = T.self) throws -> T {
        try self[index].decode(T.self)
    }
}

/// A statement asked of a connection that PostgreSQL (or the network) had already closed.
public struct PostgresConnectionClosed: Error, CustomStringConvertible {
    public init() {}
    public var description: String { "the connection to PostgreSQL is closed" }
}

extension PostgresStore {
    /// Whether `error` says that PostgreSQL cannot be reached just now (a connection lost or
    /// refused, the pool unable to make one) rather than that a statement failed: the request
    /// may succeed when asked again, once the database is back.
    public static func isUnreachable(_ error: any Error) -> Bool {
        switch error {
        case is PostgresConnectionClosed:
            true
        case let error as PostgresStoreError:
            if case .unreachable = error { true } else { false }
        case let error as PSQLError:
            [.connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown].contains(error.code)
                // The server ending its sessions: admin_shutdown, crash_shutdown, cannot_connect_now.
                || ["57P01", "57P02", "57P03"].contains(error.serverInfo?[.sqlState] ?? "")
        case let error as ConnectionPoolError:
            error == .connectionCreationCircuitBreakerTripped
        default:
            false
        }
    }
}

/// postgres-nio's pool and the task that runs it. When PostgreSQL is found down, the pool is
/// ended and another started: ending it fails at once the requests that wait for one of its
/// connections, which it would otherwise keep waiting for its minute of attempts to connect.
final class PostgresPool: Sendable {
    private struct Current {
        var client: PostgresClient
        var running: Task<Void, Never>
        var started: AsyncStream<Void>
        var closed = false
    }

    private let current: Mutex<Current>
    private let configuration: PostgresClient.Configuration
    private let logger: Logger

    init(configuration: PostgresClient.Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        current = Mutex(Self.start(configuration, logger: logger))
    }

    private static func start(_ configuration: PostgresClient.Configuration, logger: Logger) -> Current {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        let running = Task {
            start.finish()
            await client.run()
        }
        return Current(client: client, running: running, started: started)
    }

    var client: PostgresClient { current.withLock { $0.client } }

    /// Returns once the pool's `run` has begun: it takes no lease before.
    func hasStarted() async {
        for await _ in current.withLock({ $0.started }) {}
        await Task.yield()
    }

    /// Ends this pool and starts another.
    func replace() {
        let ended = current.withLock { current -> Task<Void, Never>? in
            guard !current.closed else { return nil }
            let ended = current.running
            current = Self.start(configuration, logger: logger)
            return ended
        }
        ended?.cancel()
    }

    func close() {
        current.withLock { current -> Task<Void, Never> in
            current.closed = true
            return current.running
        }.cancel()
    }
}
