import _ConnectionPoolModule
import Foundation
import GroupieCore
import GroupieStorage
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

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
