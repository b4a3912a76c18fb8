import Foundation
@testable import GroupieStorage
import Testing

@Suite("Failures kept in memory")
struct FailureLogTests {
    @Test("Forgetting quiet keys keeps each key for its own window: a minute's counts never shorten a sign-in lock")
    func prunedByEachKeysWindow() {
        let log = FailureLog()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for _ in 0..<10 { log.record("staff-account:eva", now: start, window: 900) }
        // Enough keys of a one-minute window, two minutes later, for the log to forget quiet ones.
        let later = start.addingTimeInterval(120)
        for index in 0...10_000 { log.record("toggle-player:\(index)", now: later.addingTimeInterval(-90), window: 60) }
        log.record("toggle-player:last", now: later, window: 60)
        #expect(log.failures(of: "staff-account:eva", within: 900, now: later).count == 10, "still locked")
        #expect(log.failures(of: "toggle-player:1", within: 60, now: later).isEmpty, "a quiet minute's count is gone")
        #expect(log.failures(of: "toggle-player:last", within: 60, now: later).count == 1)
    }
}
