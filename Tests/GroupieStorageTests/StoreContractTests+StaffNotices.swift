import Foundation
import GroupieCore
@testable import GroupieStorage
import Testing

extension StoreContractTests {
    @Test("A staff notice told on one instance reaches the other instances' announcements, not its own", arguments: Backend.chosen)
    func staffNotices(_ backend: Backend) async throws {
        let (first, second) = try await backend.openTwo()
        guard let toSecond = second.eventAnnouncements(), let toFirst = first.eventAnnouncements() else {
            // SQLite: the only instance tells its own pages; there is nobody to tell.
            #expect(backend == .sqlite)
            first.announce(.groupCreated(groupId: "g"))
            return
        }
        var heardBySecond = toSecond.makeAsyncIterator(), heardByFirst = toFirst.makeAsyncIterator()
        #expect(await heardBySecond.next() == .resumed)
        #expect(await heardByFirst.next() == .resumed)

        first.announce(.groupCreated(groupId: "g1"))
        first.announce(.reviewChanged(groupId: "g1"))
        var notices: [StaffNotice] = []
        while notices.count < 2, let announcement = await heardBySecond.next() {
            if case .staff(let notice) = announcement { notices.append(notice) }
        }
        #expect(notices == [.groupCreated(groupId: "g1"), .reviewChanged(groupId: "g1")])

        // Notifications arrive in the order they were sent: the first instance's own came back
        // to it before the second's, and were left out.
        second.announce(.reviewChanged(groupId: "g2"))
        var heard: StaffNotice?
        while heard == nil, let announcement = await heardByFirst.next() {
            if case .staff(let notice) = announcement { heard = notice }
        }
        #expect(heard == .reviewChanged(groupId: "g2"))
    }
}
