import Testing
import Tracing

@testable import GroupieServer

/// Changes that come while a group's collages are refreshed fold into one more round, traced
/// in the request of the latest change: the collage an upload completes is drawn in that
/// upload's trace (the end-to-end traces test follows it through a real collector).
@Suite("Collage refreshes")
struct CollageRefreshesTests {
    private enum Request: ServiceContextKey { typealias Value = String }

    private static func context(_ name: String) -> ServiceContext {
        var context = ServiceContext.topLevel
        context[Request.self] = name
        return context
    }

    /// Who a refresh's next round is traced for, or nil when the refresh is over.
    private static func next(_ refreshes: inout CollageRefreshes, _ groupId: String) -> String? {
        refreshes.next(groupId).map { $0[Request.self] ?? "no request" }
    }

    private static func start(_ refreshes: inout CollageRefreshes, _ groupId: String, for name: String) -> Bool {
        refreshes.start(groupId, context: context(name))
    }

    @Test("A change during a refresh makes one more round, in the latest change's context")
    func foldsIntoOneRound() {
        var refreshes = CollageRefreshes()
        let first = Self.start(&refreshes, "g", for: "first upload")
        let second = Self.start(&refreshes, "g", for: "second upload")
        let third = Self.start(&refreshes, "g", for: "third upload")
        let elsewhere = Self.start(&refreshes, "other", for: "elsewhere")
        #expect(first && !second && !third)
        #expect(elsewhere, "another group's refresh runs beside it")
        let round = Self.next(&refreshes, "g")
        #expect(round == "third upload")
        let after = Self.next(&refreshes, "g")
        #expect(after == nil, "three changes, two rounds")
        let fourth = Self.start(&refreshes, "g", for: "fourth upload")
        #expect(fourth, "once over, the next change starts a refresh")
    }

    @Test("A round the refresh asks of itself keeps a later change's context")
    func ownRoundYieldsToChange() {
        var refreshes = CollageRefreshes()
        let first = Self.start(&refreshes, "g", for: "first upload")
        refreshes.repeatOnce("g", context: Self.context("first upload"))
        let own = Self.next(&refreshes, "g")
        let second = Self.start(&refreshes, "g", for: "second upload")
        refreshes.repeatOnce("g", context: Self.context("first upload"))
        let latest = Self.next(&refreshes, "g")
        let over = Self.next(&refreshes, "g")
        #expect(first && !second)
        #expect(own == "first upload")
        #expect(latest == "second upload")
        #expect(over == nil)
    }

    @Test("A failed refresh forgets the round it was asked for and lets the next change start one")
    func stopForgets() {
        var refreshes = CollageRefreshes()
        let first = Self.start(&refreshes, "g", for: "first upload")
        let second = Self.start(&refreshes, "g", for: "second upload")
        refreshes.stop("g")
        let third = Self.start(&refreshes, "g", for: "third upload")
        #expect(first && !second && third)
        let round = Self.next(&refreshes, "g")
        #expect(round == nil)
    }
}
