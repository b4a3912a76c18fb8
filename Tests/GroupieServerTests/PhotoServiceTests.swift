import Foundation
import GroupieCore
@testable import GroupieServer
import GroupieStorage
import GroupieTestSupport
import Hummingbird
import Logging
import NIOCore
import Testing

/// What follows a photo's commit is the service's: the events the store committed reach the
/// group's streams, each once and in order, and nothing else does.
@Suite("Photo service")
struct PhotoServiceTests {
    @Test("Upload, choose and delete publish exactly the events the store committed, in order")
    func publishesWhatWasCommitted() async throws {
        let server = try EventTests.server()
        var logger = Logger(label: "photo-service-test")
        logger.logLevel = server.configuration.logLevel
        let dependencies = try await ServerDependencies.open(server.configuration, logger: logger)
        let clock = server.configuration.clock
        let database = dependencies.database
        let photos = PhotoService(
            database: database, catalog: dependencies.catalog,
            ingest: PhotoIngest(
                blobs: dependencies.blobs, processor: dependencies.processor, work: dependencies.imageWork, fileIO: dependencies.fileIO,
                maxUploadBytes: 20 << 20
            ),
            files: dependencies.files, committed: dependencies.committed, collages: dependencies.collages,
            toggles: ToggleAllowance(counter: AttemptLimiter(store: database, scope: "toggle-player", limit: 60, window: .seconds(60), logger: logger)),
            clock: clock
        )
        let ada = try await database.createPlayer(name: "Ada", language: nil, tokenHash: Data(repeating: 7, count: 32), now: clock())
        let group = try await database.createGroup(venueId: "aquarium", name: nil, creatorId: ada.id, joinableFor: 3600, now: clock()).group
        let before = try await database.events(groupId: group.id, after: 0, limit: 100).last?.seq ?? 0
        let watcher = dependencies.hub.subscribe(groupId: group.id, playerId: "watcher")

        let image = try Data(contentsOf: URL(fileURLWithPath: try TestImages.solid(width: 400, height: 300, rgb: (90, 30, 3), ext: "jpg")))
        func upload(choose: Bool) async throws -> Photo {
            let upload = PhotoService.Upload(
                task: GroupProgress.TaskKey(missionId: "sharks", taskId: "shark"), choose: choose, idempotencyKey: nil,
                source: .body(RequestBody(buffer: ByteBuffer(bytes: image)), contentType: "image/jpeg")
            )
            return try await photos.upload(upload, by: ada, to: group, logger: logger).photo
        }
        let first = try await upload(choose: false)
        _ = try await upload(choose: true)
        try await photos.choose(first.id, for: GroupProgress.TaskKey(missionId: "sharks", taskId: "shark"), by: ada, in: group)
        try await photos.delete(first.id, by: ada, logger: logger)
        // Refused: nothing committed, nothing published.
        await #expect(throws: PhotoError.self) { try await photos.delete(first.id, by: ada, logger: logger) }

        dependencies.hub.unsubscribe(watcher)
        var published: [GroupEvent] = []
        for await message in watcher.stream {
            if case .event(let event) = message { published.append(event) }
        }
        let committed = try await database.events(groupId: group.id, after: before, limit: 100)
        #expect(published.map(\.seq) == committed.map(\.seq))
        #expect(published.map(\.kind) == committed.map(\.kind))
        #expect(
            committed.map(\.kind.rawValue)
                == ["photo-added", "task-done", "mission-completed", "photo-added", "choice-changed", "choice-changed", "photo-removed"]
        )
        try await dependencies.fileIO.shutdown()
        try await dependencies.passwords.shutdown()
    }
}
