import Foundation
import GroupieStorage
import Logging
import ServiceLifecycle

/// Deletes groups, their photos and files once they are older than the operator's retention
/// period: visitors are often children, and nothing is kept longer than it is needed.
struct RetentionService: Service {
    let database: any GroupieStore
    let files: PhotoFiles
    let collages: CollageService
    let retention: TimeInterval
    let interval: Duration
    let clock: @Sendable () -> Date
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            await sweep()
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return
            }
        }
    }

    /// One pass: what is older than the retention period goes, and idempotency keys past their day.
    /// Several instances on one database take turns: one that finds a sweep running skips its own.
    func sweep() async {
        do {
            let swept: Void? = try await database.exclusively("retention") { try await sweepNow() }
            if swept == nil { logger.debug("retention: another instance is sweeping") }
        } catch {
            logger.error("retention sweep failed: \(error)")
        }
    }

    private func sweepNow() async throws {
        try await database.forgetExpiredUploadKeys(now: clock())
        let swept = try await database.deleteGroups(createdBefore: clock().addingTimeInterval(-retention))
        try await files.removeFiles(of: swept.unusedBlobs)
        if swept.groups > 0 {
            await collages.removeFilesOfDeletedGroups()
            logger.info("retention: deleted old groups", metadata: ["groups": "\(swept.groups)", "blobs": "\(swept.unusedBlobs.count)"])
        }
    }
}
