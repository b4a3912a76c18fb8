import Foundation
import GroupieCore
import GroupieStorage
import Hummingbird
import Logging

/// How many wrong answers a task takes before it must wait: a child who mistypes a code, or
/// tries the choices of a question one after another, goes on after a minute; a member, or a
/// whole group, guessing a found-it code through all its values cannot (a 4-digit code would
/// take days at these rates).
///
/// Wrong attempts are counted per player and task, and per group and task, each in a window of
/// a minute and in one of a quarter of an hour: the wait grows with the guessing. Right
/// attempts are not counted. The counts are the store's, so instances sharing a database share
/// them; attempts sent at once count for one another while they run (`AttemptLimiter`).
struct GuessLimits: Sendable {
    static let perPlayerPerMinute = 4
    static let perGroupPerMinute = 8
    static let perPlayerPerQuarter = 12
    static let perGroupPerQuarter = 24

    private let playerMinute: AttemptLimiter
    private let groupMinute: AttemptLimiter
    private let playerQuarter: AttemptLimiter
    private let groupQuarter: AttemptLimiter

    init(store: any GroupieStore, logger: Logger) {
        playerMinute = AttemptLimiter(store: store, scope: "guess-player", limit: Self.perPlayerPerMinute, window: .seconds(60), logger: logger)
        groupMinute = AttemptLimiter(store: store, scope: "guess-group", limit: Self.perGroupPerMinute, window: .seconds(60), logger: logger)
        playerQuarter = AttemptLimiter(store: store, scope: "guess-player-15", limit: Self.perPlayerPerQuarter, window: .seconds(900), logger: logger)
        groupQuarter = AttemptLimiter(store: store, scope: "guess-group-15", limit: Self.perGroupPerQuarter, window: .seconds(900), logger: logger)
    }

    /// Runs `answer` (which says whether the attempt was right) unless the task must wait; a
    /// wrong attempt is counted. Throws 429 `too-many-guesses` with `Retry-After` when it must.
    func guessing<T: Sendable>(
        _ task: GroupProgress.TaskKey, by player: Player, in group: Group, now: Date, _ answer: () async throws -> (T, right: Bool)
    ) async throws -> T {
        let taskKey = "\(task.missionId)/\(task.taskId)"
        let playerKey = "\(group.id):\(player.id):\(taskKey)", groupKey = "\(group.id):\(taskKey)"
        return try await playerMinute.attempting(playerKey) {
            try await groupMinute.attempting(groupKey) {
                let minute = await AttemptLimiter.retryAfter([(playerMinute, playerKey), (groupMinute, groupKey)], now: now)
                let quarter = await AttemptLimiter.retryAfter([(playerQuarter, playerKey), (groupQuarter, groupKey)], now: now)
                if let seconds = [minute, quarter].compactMap({ $0 }).max() {
                    playerMinute.logger.notice("answer refused: too many wrong attempts", metadata: ["group": "\(group.id)", "task": "\(taskKey)"])
                    throw Problem(
                        .tooManyRequests, code: "too-many-guesses",
                        detail: "Too many wrong answers to this task; try again in \(seconds) seconds.", headers: [.retryAfter: "\(seconds)"]
                    )
                }
                let (value, right) = try await answer()
                if !right {
                    for (limiter, key) in [(playerMinute, playerKey), (groupMinute, groupKey), (playerQuarter, playerKey), (groupQuarter, groupKey)] {
                        await limiter.recordFailure(key, now: now)
                    }
                }
                return value
            }
        }
    }
}
