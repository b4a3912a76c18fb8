import Crypto
import Foundation
import GroupieContent
import GroupieCore
import GroupieImaging
import GroupieStorage
import Logging
import Tracing

/// Makes, caches and forgets the collages of a group's completed missions.
///
/// Files live in `data/collages/<group>/<mission>-<inputs>-<size>.<ext>`, where `<inputs>` is a
/// hash of everything that shows in the picture (photos, texts, colours, assets, style), so a
/// cached file is never stale: when a chosen photo, a title or the theme changes, the name
/// changes. Files are written under a temporary name and renamed, so a half-written collage is
/// never served; renders of the same file wait for one another instead of running twice.
actor CollageService {
    static let defaultLongEdge = 2048
    /// What `?size=` may ask for.
    static let sizes = 256...4096
    /// The sizes drawn and kept: a size asked for is drawn at the next of these, so that a
    /// group's folder holds at most this many pictures of each completed mission in each
    /// format, however many sizes are asked for.
    static let drawnSizes = [512, 1024, 2048, 4096]

    /// The size `requested` is drawn at: the smallest drawn size that is at least as large.
    static func drawnSize(for requested: Int) -> Int {
        drawnSizes.first { $0 >= requested } ?? drawnSizes[drawnSizes.count - 1]
    }
    /// Bumped when the renderer draws differently, so that cached pictures are made again.
    static let rendererVersion = "3"

    let database: any GroupieStore
    let catalog: VenueCatalog
    let blobs: BlobStore
    let renderer: CollageRenderer
    let work: ImageWorkQueue
    let committed: Committed
    let fileIO: FileIO
    let background: BackgroundWork
    let directory: String
    let assetsDirectory: String
    let clock: @Sendable () -> Date
    let logger: Logger

    private var renders: [String: Task<CollageFile, any Error>] = [:]
    /// Renders that failed, by file, and when: asked again within `failureMemory`, the same
    /// inputs fail at once instead of costing the CPU again. New inputs make a new file name.
    private var failedRenders: [String: Date] = [:]
    static let failureMemory: TimeInterval = 600
    private var refreshes = CollageRefreshes()

    init(
        database: any GroupieStore, catalog: VenueCatalog, blobs: BlobStore, renderer: CollageRenderer, work: ImageWorkQueue,
        committed: Committed, fileIO: FileIO, background: BackgroundWork, directory: String, assetsDirectory: String,
        clock: @escaping @Sendable () -> Date, logger: Logger
    ) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // Pictures a crash interrupted while they were written: `<picture>.<instance>.<uuid>.tmp`,
        // where the instance no longer runs (another instance sharing the folder may be drawing).
        let fileManager = FileManager.default
        for group in (try? fileManager.contentsOfDirectory(atPath: directory)) ?? [] {
            for name in (try? fileManager.contentsOfDirectory(atPath: directory + "/" + group)) ?? [] where name.hasSuffix(".tmp") {
                let parts = name.split(separator: ".")
                if parts.count >= 3, TemporaryFolder.isRunning(String(parts[parts.count - 3]), root: blobs.temporary.root) { continue }
                try? fileManager.removeItem(atPath: directory + "/" + group + "/" + name)
            }
        }
        self.database = database
        self.catalog = catalog
        self.blobs = blobs
        self.renderer = renderer
        self.work = work
        self.committed = committed
        self.fileIO = fileIO
        self.background = background
        self.directory = directory
        self.assetsDirectory = assetsDirectory
        self.clock = clock
        self.logger = logger
    }

    struct CollageFile: Sendable {
        var path: String
        /// What this picture shows, its language's title included (the file's name and ETag).
        var key: String
        /// The photos it shows: a signed URL shows the picture of its record's photos, in any
        /// language, or nothing.
        var photoIds: [String]
        var width: Int
        var height: Int
    }

    /// Everything a mission's collage shows.
    struct Inputs: Sendable {
        var group: Group
        var venue: Venue
        var mission: Mission
        /// The chosen photos in task order.
        var photos: [Photo]
        var language: String
        var caption: CollageContent.Caption
        /// Hash of everything above that shows in the picture.
        var key: String
    }

    enum Unavailable: Error, Equatable {
        case unknownMission
        case incomplete(missing: Int)
        /// A mission of questions and codes alone: it has no photos to make a collage of.
        case noPhotoTasks
        /// The same picture failed to render a short while ago; `retryAfter` seconds until it is tried again.
        case failedRecently(retryAfter: Int)
    }

    // MARK: Serving

    /// The collage file of a mission at `longEdge` pixels, made now if it is not cached. Its
    /// titles are in `language` when the venue has it (a phone asks in its own language), else
    /// as the venue's texts fall back (`LanguageNegotiation`); nil: the creator's language.
    func file(
        groupId: String, missionId: String, longEdge: Int = CollageService.defaultLongEdge, format: CollageFileFormat = .jpeg, language: String? = nil
    ) async throws -> CollageFile {
        guard let subject = try await database.collageSubject(groupId: groupId) else { throw Unavailable.unknownMission }
        let inputs = try inputs(subject: subject, missionId: missionId, language: language)
        return try await file(inputs, longEdge: longEdge, format: format)
    }

    /// What a mission's collage would be made of now, its titles in `language` (nil: the
    /// creator's); throws when it cannot be made.
    func inputs(subject: CollageSubject, missionId: String, language requested: String? = nil) throws -> Inputs {
        guard let venue = catalog.venue(id: subject.group.venueId)?.venue, let mission = venue.missions.first(where: { $0.id == missionId }) else {
            throw Unavailable.unknownMission
        }
        // The photos of its photo tasks, once every task is done (questions and codes too); a
        // mission without photo tasks has no collage.
        guard !mission.photoTaskIds.isEmpty else { throw Unavailable.noPhotoTasks }
        let done = subject.taskPhotos.done
        let missing = mission.tasks.filter { !done.contains(.init(missionId: mission.id, taskId: $0.id)) }.count
        guard missing == 0, let photos = subject.taskPhotos.chosen(missionId: mission.id, taskIds: mission.photoTaskIds) else {
            throw Unavailable.incomplete(missing: missing)
        }
        let language = LanguageNegotiation.choose(explicit: requested ?? subject.creatorLanguage, acceptLanguage: nil, offered: venue.languages)
        let caption = Self.caption(venue: venue, mission: mission, group: subject.group, photos: photos, language: language)
        let key = Self.key(venue: venue, mission: mission, photos: photos, caption: caption)
        return Inputs(group: subject.group, venue: venue, mission: mission, photos: photos, language: language, caption: caption, key: key)
    }

    /// Hash of everything that shows in the picture.
    static func key(venue: Venue, mission: Mission, photos: [Photo], caption: CollageContent.Caption) -> String {
        var hasher = SHA256()
        var parts = [Self.rendererVersion, mission.style.rawValue, venue.theme.color, venue.theme.logo ?? "", mission.sticker ?? ""]
        parts += [caption.title, caption.subtitle, LanguageCode.isRightToLeft(caption.language) ? "rtl" : "ltr"] + caption.names
        parts += [mission.stickerPlace?.rawValue ?? "", mission.stickerCorner.rawValue] + mission.tasks.filter { $0.kind == .photo }.map(\.framing.rawValue)
        parts += photos.map { "\($0.blob):\($0.width)x\($0.height)" }
        for part in parts {
            hasher.update(data: Data(part.utf8))
            hasher.update(data: Data([0]))
        }
        return Hex.string(hasher.finalize().prefix(12))
    }

    func file(_ inputs: Inputs, longEdge: Int, format: CollageFileFormat) async throws -> CollageFile {
        let folder = directory + "/" + inputs.group.id
        let path = "\(folder)/\(inputs.mission.id)-\(inputs.key)-\(longEdge).\(format.rawValue)"
        if let running = renders[path] { return try await running.value }
        let now = clock()
        if let failed = failedRenders[path] {
            let age = now.timeIntervalSince(failed)
            if age < Self.failureMemory { throw Unavailable.failedRecently(retryAfter: max(1, Int(Self.failureMemory - age))) }
            failedRenders[path] = nil
        }
        let layout = CollageLayoutEngine.layout(
            photos: inputs.photos.map { PixelSize(width: $0.width, height: $0.height) }, longEdge: longEdge, style: inputs.mission.style
        )
        let done = CollageFile(path: path, key: inputs.key, photoIds: inputs.photos.map(\.id), width: layout.canvas.width, height: layout.canvas.height)
        let content = try content(inputs)
        // Registered before anything is awaited, so that a second request for the same file waits for this one.
        let instance = blobs.temporary.instance
        let task = Task { [renderer, work, fileIO, logger] in
            if try await fileIO.run({ FileManager.default.fileExists(atPath: path) }) { return done }
            let started = ContinuousClock.now
            let report = try await withSpan("collage render") { span in
                span.attributes["groupie.collage"] = "\(inputs.mission.id) \(longEdge) \(format.rawValue)"
                return try await work.run {
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                    let temporary = path + ".\(instance).\(UUID().uuidString).tmp"
                    do {
                        let report = try renderer.render(layout: layout, content: content, format: format, to: temporary)
                        try BlobStore.fsync(path: temporary)
                        guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
                        return report
                    } catch {
                        try? FileManager.default.removeItem(atPath: temporary)
                        throw error
                    }
                }
            }
            for asset in report.missingAssets {
                logger.error("collage drawn without a missing asset", metadata: ["asset": "\(asset)", "mission": "\(inputs.mission.id)", "venue": "\(inputs.venue.id)"])
            }
            if report.unreadableAssets > 0 {
                logger.error("collage drawn without assets that cannot be read", metadata: ["count": "\(report.unreadableAssets)", "mission": "\(inputs.mission.id)", "venue": "\(inputs.venue.id)"])
            }
            if report.sticker != nil, report.faces == nil {
                logger.error("sticker put in its corner: faces cannot be found without OpenCV's cascade (opencv-data)", metadata: ["mission": "\(inputs.mission.id)", "venue": "\(inputs.venue.id)"])
            }
            CollageMetrics.renders.increment()
            let elapsed = (ContinuousClock.now - started).components
            CollageMetrics.renderTime.recordNanoseconds(elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000)
            logger.debug("collage made", metadata: ["group": "\(inputs.group.id)", "mission": "\(inputs.mission.id)", "layout": "\(layout.arrangement)"])
            return done
        }
        renders[path] = task
        defer { renders[path] = nil }
        do {
            return try await task.value
        } catch {
            // A full disk is no fault of the picture: it is drawn as soon as there is room. The
            // disk is asked too, as libvips' message may be another thread's (its error buffer
            // is one for the process).
            let full = StorageFull.isOutOfSpace(error) || (StorageFull.availableBytes(at: directory).map { $0 < 16 << 20 } ?? false)
            if !full { rememberFailure(path, at: now) }
            throw error
        }
    }

    private func rememberFailure(_ path: String, at now: Date) {
        if failedRenders.count >= 1_000 {
            failedRenders = failedRenders.filter { now.timeIntervalSince($0.value) < Self.failureMemory }
            if failedRenders.count >= 1_000 { failedRenders.removeAll() }
        }
        failedRenders[path] = now
    }

    private func content(_ inputs: Inputs) throws -> CollageContent {
        try CollageTool.content(
            venue: inputs.venue, mission: inputs.mission,
            photoPaths: inputs.photos.map { try blobs.path(blob: $0.blob, variant: PhotoVariant.display.suffix) },
            focus: inputs.photos.map(\.focus), caption: inputs.caption, assetsDirectory: assetsDirectory
        )
    }

    static func caption(venue: Venue, mission: Mission, group: Group, photos: [Photo], language: String) -> CollageContent.Caption {
        var names: [String] = []
        for photo in photos where !names.contains(photo.photographerName) {
            names.append(photo.photographerName)
        }
        return CollageTool.caption(
            venue: venue, mission: mission, groupName: group.name, names: names,
            day: photos.map(\.createdAt).max() ?? group.createdAt, language: language
        )
    }

    /// The collages that show the photos chosen now: those of the album and the download.
    func current(groupId: String) async throws -> [CollageRecord] {
        guard let subject = try await database.collageSubject(groupId: groupId),
            let venue = catalog.venue(id: subject.group.venueId)?.venue
        else { return [] }
        // A collage of a mission the venue's file no longer has stays in the album while every
        // photo it shows is still the group's (none deleted or hidden since).
        let shown = Set(subject.taskPhotos.photos.values.joined().map(\.id))
        return subject.collages.filter { record in
            guard let mission = venue.missions.first(where: { $0.id == record.missionId }) else { return record.photoIds.allSatisfy(shown.contains) }
            return subject.taskPhotos.chosen(missionId: mission.id, taskIds: mission.photoTaskIds)?.map(\.id) == record.photoIds
        }
    }

    // MARK: Background

    /// After a group's photos changed: makes the collage of every completed mission whose
    /// photos changed, announces it, and forgets the collages of missions no longer complete.
    /// Runs as background work; a change while it runs makes it run once more.
    nonisolated func refresh(groupId: String) {
        background.enqueue { await self.refreshNow(groupId: groupId) }
    }

    func refreshNow(groupId: String) async {
        guard refreshes.start(groupId, context: ServiceContext.current ?? .topLevel) else { return }
        var context = ServiceContext.current ?? .topLevel
        while true {
            // Instances sharing a database refresh a group one at a time: the one that waited
            // finds the collage made (and its file in the shared folder) and draws nothing.
            do {
                let refreshed: Bool? = try await ServiceContext.withValue(context) {
                    try await withSpan("collages refresh") { span in
                        span.attributes["groupie.group"] = groupId
                        return try await database.exclusively("collages:" + groupId) { await self.refreshOnce(groupId: groupId) }
                    }
                }
                if refreshed == nil {
                    try await Task.sleep(for: .milliseconds(200))
                    refreshes.repeatOnce(groupId, context: context)
                } else if refreshed == true {
                    // The photos changed while it drew: once more, in the same request's trace.
                    refreshes.repeatOnce(groupId, context: context)
                }
            } catch {
                logger.error("cannot refresh collages: \(error)", metadata: ["group": "\(groupId)"])
                refreshes.stop(groupId)
                return
            }
            guard let next = refreshes.next(groupId) else { return }
            context = next
        }
    }

    /// One round of `refreshNow`; true when the photos changed while it drew, and it is to go
    /// round again.
    private func refreshOnce(groupId: String) async -> Bool {
        var stale = false
        do {
            guard let subject = try await database.collageSubject(groupId: groupId),
                let venue = catalog.venue(id: subject.group.venueId)?.venue
            else { return false }
            let records = Dictionary(subject.collages.map { ($0.missionId, $0) }, uniquingKeysWith: { a, _ in a })
            for mission in venue.missions {
                let record = records[mission.id]
                let inputs: Inputs
                do {
                    inputs = try self.inputs(subject: subject, missionId: mission.id)
                } catch {
                    if record != nil {
                        // Told first: once the files are gone, everything about the withdrawal is done.
                        committed.publish(try await database.deleteCollage(groupId: groupId, missionId: mission.id, now: clock()))
                        try await removeFiles(groupId: groupId, missionId: mission.id, except: [])
                    }
                    continue
                }
                if let record, record.key == inputs.key { continue }
                let file: CollageFile
                do {
                    file = try await self.file(inputs, longEdge: Self.defaultLongEdge, format: .jpeg)
                } catch {
                    // A photo deleted while its collage renders: the next refresh makes the right one.
                    logger.warning("collage not made: \(error)", metadata: ["group": "\(groupId)", "mission": "\(mission.id)"])
                    continue
                }
                // Only announce a collage whose photos are still the chosen ones.
                guard let now = try await database.collageSubject(groupId: groupId),
                    (try? self.inputs(subject: now, missionId: mission.id))?.key == inputs.key
                else {
                    stale = true
                    continue
                }
                let madeAt = clock()
                let saved = try await database.saveCollage(CollageRecord(
                    groupId: groupId, missionId: mission.id, photoIds: inputs.photos.map(\.id), key: inputs.key,
                    width: file.width, height: file.height, createdAt: madeAt
                ), now: madeAt)
                // The same photos drawn in the venue's other languages stay: a phone or a recap
                // may have just asked for one.
                let current = Set(venue.languages.compactMap { try? self.inputs(subject: now, missionId: mission.id, language: $0).key })
                try await removeFiles(groupId: groupId, missionId: mission.id, except: current.union([inputs.key]))
                committed.publish(saved?.events ?? [])
            }
        } catch {
            logger.error("cannot refresh collages: \(error)", metadata: ["group": "\(groupId)"])
        }
        return stale
    }

    /// Removes a mission's collage files but those of the inputs `except` (the current photos,
    /// in each of the venue's languages). A picture still being written (`….tmp`: asked for by a
    /// phone or a recap meanwhile) is left to its writer, which would fail to finish it
    /// otherwise; one a crash left goes at start.
    private func removeFiles(groupId: String, missionId: String, except keys: Set<String>) async throws {
        let folder = directory + "/" + groupId
        try await fileIO.run {
            let prefix = missionId + "-"
            let keep = keys.map { prefix + $0 + "-" }
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(prefix) && !name.hasSuffix(".tmp") {
                // Mission ids are `[a-z0-9-]+`: the hash after the id tells one mission from another with a longer id.
                let rest = name.dropFirst(prefix.count)
                guard rest.count > 24, rest.prefix(24).allSatisfy(\.isHexDigit), rest.dropFirst(24).first == "-" else { continue }
                if keep.contains(where: { name.hasPrefix($0) }) { continue }
                try? FileManager.default.removeItem(atPath: folder + "/" + name)
            }
        }
    }

    /// Removes the collage folders of groups that no longer exist (after retention).
    func removeFilesOfDeletedGroups() async {
        let directory = self.directory
        let folders = (try? await fileIO.run { try FileManager.default.contentsOfDirectory(atPath: directory) }) ?? []
        for name in folders where (try? await database.groupExists(id: name)) == false {
            _ = try? await fileIO.run { try FileManager.default.removeItem(atPath: directory + "/" + name) }
        }
    }
}
