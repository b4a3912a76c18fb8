import Foundation
import GroupieServer
@testable import GroupieSQLite
import GroupieStorage
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// A data folder on a small file system of the test's own (tmpfs), filled up while the
/// server runs.
@Suite("A full disk")
struct FullDiskTests {
    /// Whether this process may mount a file system (root, outside a container that forbids it).
    static let canMount: Bool = {
        let point = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-mount-\(UUID().uuidString)").path
        guard (try? FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: true)) != nil else { return false }
        defer { try? FileManager.default.removeItem(atPath: point) }
        guard (try? run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", point])) == 0 else { return false }
        return (try? run("/bin/umount", [point])) == 0
    }()

    static func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
        try ChildProcess.run(executable, arguments).status
    }

    /// Takes all but `leaving` bytes of the free space of the file system at `folder`, in one
    /// allocated file; returns its path.
    static func fill(_ folder: String, leaving: Int64) throws -> String {
        let path = folder + "/filler"
        let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw TestFailure("cannot make \(path)") }
        defer { close(descriptor) }
        let available = try #require(StorageFull.availableBytes(at: folder))
        guard available > leaving else { return path }
        guard posix_fallocate(descriptor, 0, off_t(available - leaving)) == 0 else { throw TestFailure("cannot fill \(folder)") }
        return path
    }

    @Test(
        "An upload to a full disk is answered 507, leaves nothing behind, reads and small writes go on, and uploads work again once room is made",
        .enabled(if: canMount, "mounting a small file system (tmpfs) is refused to this process")
    )
    func fullDisk() async throws {
        var server = try PhotoRouteTests.server()
        let small = server.root + "/small"
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        #expect(try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=24m,mode=0700", "tmpfs", small]) == 0)
        defer { _ = try? Self.run("/bin/umount", ["-l", small]) }
        server.configuration.dataDirectory = small + "/data"
        let large = TestServer.repository.appendingPathComponent("Tests/Fixtures/Photos/hubble.jpg").path
        let other = TestServer.repository.appendingPathComponent("Tests/Fixtures/Photos/chelsea.jpg").path
        let running = server
        try await running.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let (first, body) = try await PhotoRouteTests.upload(client, other, as: ada, group: group.id, query: "?mission=sharks&task=shark")
            #expect(first.status == .created)
            let photoId = try #require((body["photo"] as? [String: Any])?["id"] as? String)
            let filesBefore = PhotoRouteTests.blobFiles(running)

            // Room for a few pages of the database, not for a photo.
            let filler = try Self.fill(small, leaving: 160 << 10)
            let (refused, problem) = try await PhotoRouteTests.upload(client, large, as: ada, group: group.id)
            #expect(refused.status.code == 507)
            #expect(problem["code"] as? String == "insufficient-storage", "\(problem)")
            #expect(refused.headers[.retryAfter] != nil)
            #expect(PhotoRouteTests.blobFiles(running) == filesBefore, "no photo file of the refused upload stays")
            #expect(PhotoRouteTests.temporaryFiles(running).isEmpty, "no temporary file stays")

            // Reads, and writes that fit, go on.
            #expect(try await client.send(.get, "/api/v1/groups/\(group.id)/photos", headers: ada.auth).0.status == .ok)
            #expect(try await PhotoRouteTests.bytes(client, "/api/v1/photos/\(photoId)/thumb", headers: ada.auth).0 == .ok)
            #expect(try await client.send(.patch, "/api/v1/me", json: #"{"name": "Ada L"}"#, headers: ada.auth).0.status == .ok)
            let bo = try await client.newPlayer("Bo")
            #expect(try await client.join(group.code, as: bo).0.status == .ok)
            #expect(try await client.send(.get, "/api/v1/groups/\(group.id)", headers: bo.auth).0.status == .ok)

            // Room for the photo as received, not for what is made of it: refused the same way.
            try FileManager.default.removeItem(atPath: filler)
            let tighter = try Self.fill(small, leaving: 300 << 10)
            let (later, laterProblem) = try await PhotoRouteTests.upload(client, large, as: ada, group: group.id)
            #expect(later.status.code == 507, "\(laterProblem)")
            #expect(PhotoRouteTests.blobFiles(running) == filesBefore, "no photo file of the refused upload stays")
            #expect(PhotoRouteTests.temporaryFiles(running).isEmpty, "no temporary file stays")

            // No room at all: a collage not drawn yet cannot be, and is drawn once there is room.
            try FileManager.default.removeItem(atPath: tighter)
            let none = try Self.fill(small, leaving: 0)
            let collage = "/api/v1/groups/\(group.id)/missions/sharks/collage.jpg?size=1024"
            #expect(try await PhotoRouteTests.bytes(client, collage, headers: ada.auth).0 == .serviceUnavailable)
            try FileManager.default.removeItem(atPath: none)
            #expect(try await PhotoRouteTests.bytes(client, collage, headers: ada.auth).0 == .ok, "drawn at once, not 10 minutes later")

            // Room again: the same upload goes through, without a restart.
            let (again, stored) = try await PhotoRouteTests.upload(client, large, as: ada, group: group.id)
            #expect(again.status == .created, "\(stored)")
            #expect(PhotoRouteTests.blobFiles(running).count == filesBefore.count + 4)
        }
    }

    @Test(
        "A database write that finds the disk full throws StorageFull and leaves nothing; the writes before and after it are kept",
        .enabled(if: canMount, "mounting a small file system (tmpfs) is refused to this process")
    )
    func databaseFull() async throws {
        let small = try ScratchFolder.make("groupie-full-database")
        defer { try? FileManager.default.removeItem(atPath: small) }
        #expect(try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=8m,mode=0700", "tmpfs", small]) == 0)
        defer { _ = try? Self.run("/bin/umount", ["-l", small]) }
        let database = try SQLiteStore.open(atPath: small + "/groupie.sqlite")
        let filler = try Self.fill(small, leaving: 64 << 10)
        var stored: [String] = []
        var full: StorageFull?
        // Each player carries 16 KiB, so that the last free pages go within a few writes.
        for index in 0..<64 where full == nil {
            do {
                let hash = Data((0..<16_384).map { _ in UInt8.random(in: 0...255) })
                stored.append(try await database.createPlayer(name: "P\(index)", language: nil, tokenHash: hash, now: Date()).id)
            } catch let error as StorageFull {
                full = error
            }
        }
        #expect(full != nil, "a write found the disk full after \(stored.count) writes")
        #expect(try await database.counts().players == stored.count, "the refused write left no row")

        try FileManager.default.removeItem(atPath: filler)
        let after = try await database.createPlayer(name: "After", language: nil, tokenHash: Data("after".utf8), now: Date())
        for id in stored + [after.id] {
            #expect(try await database.player(id: id) != nil)
        }
        #expect(try await database.integrityCheck() == "ok")
    }
}
