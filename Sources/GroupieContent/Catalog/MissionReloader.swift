import Dispatch
import Foundation
import GroupieCore
import Logging
import Synchronization
import ServiceLifecycle

/// Keeps the catalog equal to the last valid version of every file in the missions folder.
public final class MissionReloader: Sendable {
    /// A venue that came, changed or went; the server turns these into events for groups.
    public enum Change: Sendable, Equatable {
        case published(venueId: String)
        case withdrawn(venueId: String)
    }

    public let folder: MissionFolder
    public let catalog: VenueCatalog
    private let logger: Logger
    private let signatures = Mutex<[String: MissionFolder.Signature]>([:])
    /// Problems of the files that are invalid now. They are read again at every look, since
    /// the fix may be outside the file (an icon copied into the assets folder), but their
    /// problems are logged only when they change.
    private let invalidFiles = Mutex<[String: [MissionProblem]]>([:])
    /// Files already logged as not read (`*.yml`, or not a regular file).
    private let skippedFiles = Mutex<Set<String>>([])
    /// Every file's problems (errors and warnings) as of its last reading, for the staff console.
    private let lastProblems = Mutex<[String: [MissionProblem]]>([:])

    /// Each file of the folder as last read: its path and its problems then, by path.
    public var fileProblems: [(path: String, problems: [MissionProblem])] {
        lastProblems.withLock { all in all.keys.sorted().map { ($0, all[$0] ?? []) } }
    }

    public init(folder: MissionFolder, catalog: VenueCatalog, logger: Logger) {
        self.folder = folder
        self.catalog = catalog
        self.logger = logger
    }

    /// Logs each file that is not read once, when it appears.
    private func logNewlySkipped(_ problems: [MissionProblem]) {
        let new = skippedFiles.withLock { known in
            let new = problems.filter { !known.contains($0.path) }
            known = Set(problems.map(\.path))
            return new
        }
        for problem in new { logger.error("\(problem)") }
    }

    /// Reads every file that is new or changed since the last call, publishes the valid ones,
    /// logs the problems of the others (their last good version stays live), and withdraws
    /// venues whose file is gone. Blocking: call it off Swift's cooperative threads.
    @discardableResult
    public func reloadChangedFiles() throws -> [Change] {
        let (paths, skipped) = try folder.listing()
        logNewlySkipped(skipped)
        var changes: [Change] = []
        var seen = Set<String>()
        let previous = signatures.withLock { $0 }
        var next = previous
        var invalid = invalidFiles.withLock { $0 }
        for path in paths {
            seen.insert(path)
            let signature = MissionFolder.signature(of: path)
            if let signature, previous[path] == signature, invalid[path] == nil { continue }
            next[path] = signature
            let report = folder.reader.read(fileAt: path)
            lastProblems.withLock { $0[path] = report.problems }
            let knownProblems = invalid[path]
            invalid[path] = report.isValid ? nil : report.problems
            if !report.isValid, knownProblems == report.problems { continue }
            for problem in report.problems {
                if problem.severity == .error {
                    logger.error("\(problem)")
                } else {
                    logger.warning("\(problem)")
                }
            }
            if let venue = report.venue {
                let entry = VenueCatalog.Entry(venue: venue, contentHash: report.contentHash, path: path)
                if let other = catalog.venue(id: venue.id), other.path != path {
                    logger.error("\(path): venue id '\(venue.id)' is already served from \(other.path); this file is ignored")
                    continue
                }
                if catalog.publish(entry) {
                    logger.info("venue loaded", metadata: ["venue": "\(venue.id)", "missions": "\(venue.missions.count)", "file": "\(path)"])
                    changes.append(.published(venueId: venue.id))
                }
            } else if let live = catalog.all.first(where: { $0.path == path }) {
                logger.error("\(path) has \(report.errors.count) error(s); venue '\(live.venue.id)' keeps its last good version")
            } else {
                logger.error("\(path) has \(report.errors.count) error(s); the venue is not served until they are fixed")
            }
        }
        for path in previous.keys where !seen.contains(path) {
            next[path] = nil
            invalid[path] = nil
            lastProblems.withLock { $0[path] = nil }
            if let id = catalog.withdraw(path: path) {
                logger.warning("mission file removed; venue withdrawn", metadata: ["venue": "\(id)", "file": "\(path)"])
                changes.append(.withdrawn(venueId: id))
            }
        }
        signatures.withLock { $0 = next }
        invalidFiles.withLock { $0 = invalid }
        return changes
    }

    /// `reloadChangedFiles()` on `threads`, so the cooperative pool never waits on the disk.
    @discardableResult
    public func reloadChangedFiles(on threads: some BlockingWork) async throws -> [Change] {
        try await threads.run { try self.reloadChangedFiles() }
    }
}

/// A bounded pool of threads for blocking disk work; the server gives its file pool.
public protocol BlockingWork: Sendable {
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T
}

/// Looks at the missions folder every `interval` and reloads what changed, until shutdown.
public struct MissionReloadService: Service {
    let reloader: MissionReloader
    let threads: any BlockingWork
    let interval: Duration
    let logger: Logger
    let onChange: @Sendable ([MissionReloader.Change]) async -> Void

    public init(
        reloader: MissionReloader, threads: any BlockingWork, interval: Duration, logger: Logger,
        onChange: @escaping @Sendable ([MissionReloader.Change]) async -> Void = { _ in }
    ) {
        self.reloader = reloader
        self.threads = threads
        self.interval = interval
        self.logger = logger
        self.onChange = onChange
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return
            }
            do {
                let changes = try await reloader.reloadChangedFiles(on: threads)
                if !changes.isEmpty { await onChange(changes) }
            } catch {
                logger.error("cannot read the missions folder: \(error)", metadata: ["folder": "\(reloader.folder.directory)"])
            }
        }
    }
}
