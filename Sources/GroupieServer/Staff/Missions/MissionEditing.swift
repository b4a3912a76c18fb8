import Foundation
import GroupieContent
import GroupieCore
import GroupieStorage
import Logging

/// Saving a venue's mission file from the console: checked as the reloader checks it, written
/// only over the version the editor opened, kept as a version with who saved it, put live at
/// once and announced to the venue's groups, as a save into the folder by hand would be.
struct MissionEditing: Sendable {
    let reloader: MissionReloader
    let history: MissionHistory
    let database: any GroupieStore
    let committed: Committed
    let fileIO: FileIO
    let clock: @Sendable () -> Date
    let logger: Logger

    /// What a save did, or why it did not.
    enum Outcome: Sendable {
        case saved(MissionHistory.Version)
        /// The text has errors; nothing was written.
        case problems([MissionProblem])
        /// The file changed on disk since the editor opened it; nothing was written.
        case changedOnDisk(current: String, hash: String)
        /// Groups have photos under tasks the text no longer has; nothing was written until
        /// the editor confirms.
        case dropsPhotos([GroupDrop])
    }

    /// A group and the tasks (with their photos) that the new version would leave behind.
    struct GroupDrop: Sendable {
        var groupId: String
        var groupName: String
        var tasks: [(task: GroupProgress.TaskKey, photos: Int)]
    }

    /// Groups read for the warning: far more than play at once at a venue.
    static let groupsChecked = 10_000

    /// The problems of `text` as the file at `path`.
    func check(_ text: String, path: String) -> MissionFileReport {
        reloader.folder.reader.read(bytes: Data(text.utf8), path: path)
    }

    /// Saves `text` as the file at `path` of `venueId` when it has no errors, the file on disk
    /// is still `base`, and (unless `confirmed`) no group loses a task it has photos under.
    func save(
        _ text: String, venueId: String, path: String, base: String, confirmed: Bool, by member: StaffMember, note: String? = nil
    ) async throws -> Outcome {
        let report = check(text, path: path)
        guard let venue = report.venue else { return .problems(report.problems) }
        if !confirmed {
            let drops = try await dropped(venueId: venueId, by: venue)
            if !drops.isEmpty {
                // A text over a file changed on disk is refused as such before the warning.
                let now = try await fileIO.run { try MissionFileWriter.current(path) }
                if (now?.hash ?? "") != base { return .changedOnDisk(current: now?.text ?? "", hash: now?.hash ?? "") }
                return .dropsPhotos(drops)
            }
        }
        let (history, date, email) = (self.history, clock(), member.email)
        // The text is the file as the editor opened it, still on disk, and kept as the newest
        // version: nothing changes, and nothing is written, kept or logged.
        if MissionFileReader.hash(Data(text.utf8)) == base {
            let unchanged: MissionHistory.Version? = try await fileIO.run { try history.exclusively {
                guard try MissionFileWriter.current(path)?.hash == base, let newest = try history.versions(venueId: venueId).first, newest.hash == base else {
                    return nil
                }
                return newest
            } }
            if let unchanged { return .saved(unchanged) }
        }
        // The audit line first: a save whose line cannot be written is never made. It names the
        // version the save makes; a save that meets another (the file changed since) is refused
        // when it writes, and only a file changed by hand in between can make the two differ.
        let number = try await fileIO.run { try history.exclusively { () -> Int? in
            let onDisk = try MissionFileWriter.current(path)
            guard (onDisk?.hash ?? "") == base else { return nil }
            return try history.numberOfSave(venueId: venueId, text: text, onDisk: onDisk?.text)
        } }
        guard let number else {
            let now = try await fileIO.run { try MissionFileWriter.current(path) }
            return .changedOnDisk(current: now?.text ?? "", hash: now?.hash ?? "")
        }
        try await database.audit(AuditEntry(
            at: date, staffEmail: email, venueId: venueId, action: .missionsSaved, subject: "version \(number)", reason: note
        ))
        let written: (MissionFileWriter.Outcome, MissionHistory.Version?)
        do {
            written = try await fileIO.run { try history.exclusively {
                var version: MissionHistory.Version?
                let outcome = try MissionFileWriter().write(text, to: path, over: base) { old in
                    // The file as found, before its first save here, so that it can be restored too.
                    if let old, try history.versions(venueId: venueId).first?.hash != MissionFileReader.hash(Data(old.utf8)) {
                        try history.record(venueId: venueId, text: old, staffEmail: nil, at: date, note: "as found on disk")
                    }
                }
                if case .saved = outcome {
                    version = try history.record(venueId: venueId, text: text, staffEmail: email, at: date, note: note)
                }
                return (outcome, version)
            } }
        } catch {
            // A write that failed (a full disk) has its line too, beside the one written before it.
            try? await database.audit(AuditEntry(
                at: date, staffEmail: email, venueId: venueId, action: .missionsSaveFailed, subject: "version \(number)", reason: "\(error)".prefix(200).description
            ))
            throw error
        }
        guard case .saved = written.0, let version = written.1 else {
            // Changed since the line was written: a second line says the save was not made.
            logger.warning("mission file changed on disk during a save", metadata: ["venue": "\(venueId)", "version": "\(number)"])
            try await database.audit(AuditEntry(
                at: date, staffEmail: email, venueId: venueId, action: .missionsSaveRefused, subject: "version \(number)", reason: "the file changed meanwhile"
            ))
            if case .changedOnDisk(let current, let hash) = written.0 { return .changedOnDisk(current: current, hash: hash) }
            return .problems([])
        }
        if version.number != number {
            logger.warning("mission version numbered apart from its audit line", metadata: ["venue": "\(venueId)", "version": "\(version.number)", "audit": "\(number)"])
        }
        logger.info("mission file saved from the console", metadata: ["venue": "\(venueId)", "staff": "\(member.id)", "version": "\(version.number)"])
        try await reloadNow()
        return .saved(version)
    }

    /// Reads the changed files of the missions folder at once, instead of at the reloader's next
    /// look, and tells the groups of each venue that changed.
    func reloadNow() async throws {
        let changes = try await reloader.reloadChangedFiles(on: fileIO)
        VenueMetrics.update(catalog: reloader.catalog)
        await VenueUpdates.announce(changes, database: database, committed: committed)
    }

    /// The venue's groups playing now with photos under tasks `venue` does not have.
    func dropped(venueId: String, by venue: Venue) async throws -> [GroupDrop] {
        try await database.playingGroupContents(venueId: venueId, limit: Self.groupsChecked).compactMap { playing in
            let tasks = DroppedTasks.of(playing.taskPhotos, in: venue)
            return tasks.isEmpty ? nil : GroupDrop(groupId: playing.group.id, groupName: StaffPages.name(playing.group), tasks: tasks)
        }
    }
}

/// Tells the groups of each venue that came or changed to read it again.
enum VenueUpdates {
    static func announce(_ changes: [MissionReloader.Change], database: any GroupieStore, committed: Committed) async {
        for change in changes {
            guard case .published(let venueId) = change, let groups = try? await database.activeGroupIds(venueId: venueId) else { continue }
            for groupId in groups {
                await committed.store(groupId: groupId, [.venueUpdated(venueId: venueId)])
            }
        }
    }
}
