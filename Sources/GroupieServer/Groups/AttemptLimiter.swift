import Foundation
import HTTPTypes
import Hummingbird
import GroupieCore
import GroupieStorage
import Logging
import Synchronization

/// Counts failed joins per key (a player, a client address) in a sliding window, so that
/// guessing join codes does not pay. Successful joins are not counted.
///
/// Two limits work together: a low one per player, so that a child who mistypes is slowed
/// down alone, and a high one per client address (a school class shares the museum's Wi-Fi
/// address; its mistakes together stay far below it), which stops guessing with a stream of
/// new players from one machine. `/j/{code}` pages count unknown codes against the address.
///
/// The same counting bounds what one address makes (`create-address`): players and groups, each
/// made one counted, so that a script cannot fill the database with them.
///
/// The failures are kept by the store, so that instances sharing a database share the limits.
/// A store that cannot be asked lets the attempt through: the request itself then fails.
///
/// A failure is known only once its attempt ends, so attempts sent at once would all read the
/// same count before any is recorded. Attempts made through `attempting` count as failures for
/// the others of their key on this instance until they end: a burst of wrong codes gets no more
/// tries than the limit on each instance.
struct AttemptLimiter: Sendable {
    let store: any GroupieStore
    /// What the keys count: "join-player", "join-address", "staff-account"…
    let scope: String
    let limit: Int
    let window: TimeInterval
    let logger: Logger
    /// The attempts of each key running on this instance now.
    private let running = RunningAttempts()

    init(store: any GroupieStore, scope: String, limit: Int, window: Duration, logger: Logger) {
        self.store = store
        self.scope = scope
        self.limit = limit
        self.window = TimeInterval(window.components.seconds)
        self.logger = logger
    }

    /// Runs `body` as an attempt of `key`: while it runs, the limit counts it against the other
    /// attempts of `key` on this instance as if it had failed.
    func attempting<T: Sendable>(_ key: String, _ body: () async throws -> T) async throws -> T {
        running.add(key, 1)
        defer { running.add(key, -1) }
        return try await body()
    }

    /// The attempts of `key` running beside the one asking (which runs in `attempting`, or no
    /// attempt of the key is counted).
    func othersRunning(_ key: String) -> Int {
        max(0, running.count(key) - 1)
    }

    /// Seconds until `key` may try again, or nil when it may try now; `allowing` attempts
    /// more than the limit are let through (the attempt being asked about, counted already).
    func retryAfter(_ key: String, now: Date, allowing extra: Int = 0) async -> Int? {
        await Self.retryAfter([(self, key)], now: now, allowing: extra)
    }

    /// The longest wait of several limits of one store and one window, each for its key, read
    /// from the store at once.
    static func retryAfter(_ checks: [(limiter: AttemptLimiter, key: String)], now: Date, allowing extra: Int = 0) async -> Int? {
        await retryAfter(checks.map { ($0.limiter, $0.key, nil) }, now: now, allowing: extra)
    }

    /// The same, each key's failures counted only from its `since` (when its lock was lifted).
    static func retryAfter(_ checks: [(limiter: AttemptLimiter, key: String, since: Date?)], now: Date, allowing extra: Int = 0) async -> Int? {
        guard let first = checks.first?.limiter else { return nil }
        precondition(checks.allSatisfy { $0.limiter.window == first.window }, "limits read at once share their window")
        let keys = checks.map { $0.limiter.scope + ":" + $0.key }
        // The attempts running are read before the failures: one that records its failure and
        // ends in between is counted by one of the two reads, never by neither.
        let running = checks.map { $0.limiter.othersRunning($0.key) }
        do {
            return wait(checks, failures: try await first.store.failures(of: keys, within: first.window, now: now), running: running, now: now, allowing: extra)
        } catch {
            first.logger.error("cannot read the failed attempts of a rate limit: \(error)", metadata: ["scope": "\(first.scope)"])
            return nil
        }
    }

    /// The longest wait of the limits given their keys' failures (as the store keys them,
    /// `scope:key`) and the attempts of each running beside the one asking, both read already,
    /// the running ones first.
    static func wait(
        _ checks: [(limiter: AttemptLimiter, key: String, since: Date?)], failures: [String: [Date]], running: [Int], now: Date, allowing extra: Int = 0
    ) -> Int? {
        let waits = zip(checks, running).compactMap { check, others -> Int? in
            let recent = (failures[check.limiter.scope + ":" + check.key] ?? []).filter { failure in check.since.map { failure > $0 } ?? true }
            guard recent.count + others >= check.limiter.limit + extra else { return nil }
            // Full with attempts still running: a second, by which they have ended and counted.
            guard let oldest = recent.first, recent.count >= check.limiter.limit + extra else { return 1 }
            return max(1, Int((check.limiter.window - now.timeIntervalSince(oldest)).rounded(.up)))
        }
        return waits.max()
    }

    /// Throws 429 `too-many-created` when `key` has made its limit of what it counts: before a
    /// request's body is read, so that a client over it hears at once; `creating` reads it again.
    func requireCreationAllowed(_ key: String, what: String, now: Date) async throws {
        guard let seconds = await retryAfter(key, now: now) else { return }
        logger.notice("creation refused: too many from one address", metadata: ["scope": "\(scope)", "what": "\(what)"])
        throw Problem(
            .tooManyRequests, code: "too-many-created",
            detail: "Too many \(what) were made from this address; try again in \(seconds) seconds.",
            headers: [.retryAfter: "\(seconds)"]
        )
    }

    /// Makes something `key` counts (`make`, from its request's body's end, `now`, to its
    /// answer): counted against the others of `key` while it runs, refused with 429 when the
    /// limit, read again counting them, is reached, and recorded once made. Things asked for at
    /// once cannot all pass the limit.
    func creating<T: Sendable>(_ key: String, what: String, now: Date, _ make: () async throws -> T) async throws -> T {
        try await attempting(key) {
            try await requireCreationAllowed(key, what: what, now: now)
            let made = try await make()
            await recordFailure(key, now: now)
            return made
        }
    }

    func forget(_ key: String) async {
        do {
            try await store.forgetFailures(of: scope + ":" + key)
        } catch {
            logger.error("cannot forget the attempts of a rate limit: \(error)", metadata: ["scope": "\(scope)"])
        }
    }

    func recordFailure(_ key: String, now: Date) async {
        do {
            try await store.recordFailure(of: scope + ":" + key, now: now, window: window)
        } catch {
            logger.error("cannot count a failed attempt: \(error)", metadata: ["scope": "\(scope)"])
        }
    }
}

/// How many attempts of each key run now.
final class RunningAttempts: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    func add(_ key: String, _ change: Int) {
        counts.withLock { counts in
            let count = (counts[key] ?? 0) + change
            counts[key] = count > 0 ? count : nil
        }
    }

    func count(_ key: String) -> Int {
        counts.withLock { $0[key] ?? 0 }
    }
}

/// The address a request comes from, as the rate limits see it.
struct ClientAddress: Sendable {
    /// Behind a reverse proxy, the last `X-Forwarded-For` entry (the one the proxy added), of
    /// every such header line: a proxy may add a line of its own after the client's.
    let trustForwardedFor: Bool

    func of(_ request: Request, context: some RemoteAddressRequestContext) -> String {
        if trustForwardedFor, let forwarded = request.headers[values: .xForwardedFor].joined(separator: ",").split(separator: ",").last {
            return Self.key(forwarded.trimmingCharacters(in: .whitespaces))
        }
        return context.remoteAddress?.ipAddress.map(Self.key) ?? "unknown"
    }

    /// What a limit counts an address under: an IPv4 address as it is (also when an IPv6
    /// socket shows it as `::ffff:a.b.c.d`), an IPv6 address by its /64, the least a
    /// network hands one client, which may take any address in it.
    static func key(_ address: String) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        guard address.contains(":"), inet_pton(AF_INET6, address, &bytes) == 1 else { return address }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return bytes[12...].map(String.init).joined(separator: ".")
        }
        return stride(from: 0, to: 8, by: 2).map { String(Int(bytes[$0]) << 8 | Int(bytes[$0 + 1]), radix: 16) }.joined(separator: ":") + "::/64"
    }
}

extension HTTPField.Name {
    static let xForwardedFor = Self("X-Forwarded-For")!
}

/// What the group and player routes hold joining and making things to: wrong codes per player
/// and per address, and what one address makes.
struct JoinLimits: Sendable {
    let byPlayer: AttemptLimiter
    let byAddress: AttemptLimiter
    let creationsByAddress: AttemptLimiter
    let clientAddress: ClientAddress

    /// 429 while the player or their address has had too many wrong codes.
    func requireJoinAllowed(_ player: Player, address: String, now: Date) async throws {
        if let seconds = await AttemptLimiter.retryAfter([(byPlayer, player.id), (byAddress, address)], now: now) {
            throw Self.tooManyAttempts(seconds)
        }
    }

    /// The same limits, for the store to read in the join's own transaction and refuse it by.
    func joinGate(_ player: Player, address: String, now: Date) -> FailureGate {
        precondition(byPlayer.window == byAddress.window, "limits read at once share their window")
        let checks: [(limiter: AttemptLimiter, key: String, since: Date?)] = [(byPlayer, player.id, nil), (byAddress, address, nil)]
        // Read now, before the store reads the failures in the join's transaction.
        let running = checks.map { $0.limiter.othersRunning($0.key) }
        return FailureGate(keys: checks.map { $0.limiter.scope + ":" + $0.key }, window: byPlayer.window) { failures in
            if let seconds = AttemptLimiter.wait(checks, failures: failures, running: running, now: now) { throw Self.tooManyAttempts(seconds) }
        }
    }

    private static func tooManyAttempts(_ seconds: Int) -> Problem {
        Problem(
            .tooManyRequests, code: "too-many-attempts", detail: "Too many wrong codes; try again in \(seconds) seconds.",
            headers: [.retryAfter: "\(seconds)"]
        )
    }

    /// Runs `body`, a join of `player` from `address`, as an attempt of both: the limits count
    /// it against the player's and the address's other joins until it ends.
    func attempt<T: Sendable>(_ player: Player, address: String, _ body: () async throws -> T) async throws -> T {
        try await byPlayer.attempting(player.id) {
            try await byAddress.attempting(address) { try await body() }
        }
    }

    /// Counts a wrong code against the player and their address.
    func joinFailed(_ player: Player, address: String, now: Date) async {
        await byPlayer.recordFailure(player.id, now: now)
        await byAddress.recordFailure(address, now: now)
    }
}
