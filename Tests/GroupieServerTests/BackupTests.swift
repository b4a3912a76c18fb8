import Foundation
import GroupieCore
import GroupiePostgres
@testable import GroupieServer
@testable import GroupieSQLite
import GroupieStorage
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

/// `groupie backup` while visitors upload, and `groupie restore` of what it made.
@Suite("Backup and restore")
struct BackupTests {
    static let photos = ["astronaut", "brick", "chelsea", "coffee", "rocket"].map {
        TestServer.repository.appendingPathComponent("Tests/Fixtures/Photos/\($0).jpg").path
    }

    /// The photos answered 201, in order, each with when its answer came.
    final class Acknowledged: Sendable {
        private let ids = Mutex<[(id: String, at: ContinuousClock.Instant)]>([])
        private let stopped = Mutex(false)
        var isStopped: Bool { stopped.withLock { $0 } }
        func stop() { stopped.withLock { $0 = true } }
        func add(_ id: String) { ids.withLock { $0.append((id, .now)) } }
        var count: Int { ids.withLock { $0.count } }
        func before(_ moment: ContinuousClock.Instant) -> [String] { ids.withLock { $0.filter { $0.at < moment }.map(\.id) } }
        func between(_ start: ContinuousClock.Instant, _ end: ContinuousClock.Instant) -> Int {
            ids.withLock { $0.filter { $0.at > start && $0.at < end }.count }
        }
    }

    /// Uploads the fixture photos one after another until told to stop, recording each one
    /// answered 201; any other answer fails the test.
    static func uploadUntilStopped(
        _ client: some TestClientProtocol, as player: TestPlayer, group: String, into acknowledged: Acknowledged
    ) async throws {
        var index = 0
        while !acknowledged.isStopped {
            let (response, body) = try await PhotoRouteTests.upload(client, photos[index % photos.count], as: player, group: group)
            #expect(response.status == .created, "\(body)")
            if let id = (body["photo"] as? [String: Any])?["id"] as? String { acknowledged.add(id) }
            index += 1
        }
    }

    /// Every photo's files in `data` are those of the same photo in `original`, byte for byte.
    static func expectFiles(of photos: [Photo], in data: String, sameAs original: String) throws {
        for photo in photos {
            let folder = "/blobs/\(photo.blob.prefix(2))/"
            let names = try FileManager.default.contentsOfDirectory(atPath: original + folder).filter { $0.hasPrefix(photo.blob) }
            #expect(names.count == 4, "original, served, display and thumb of \(photo.id)")
            for name in names {
                #expect(FileManager.default.contents(atPath: data + folder + name) == FileManager.default.contents(atPath: original + folder + name), "\(name)")
            }
        }
    }

    /// Serves `server`, uploads photos one after another, and runs `backup` once three are
    /// answered, while the uploads go on: again (into the same folder, which copies what is
    /// new) until an upload is answered 201 while one runs, so that the backup restored is one
    /// taken during uploads, at most `tries` times. Returns the player, the group, and the
    /// photos answered 201 before the last backup began.
    static func uploadWhileBackingUp(
        _ server: TestServer, tries: Int = 30, backup: @escaping @Sendable () async throws -> Void
    ) async throws -> (player: TestPlayer, groupId: String, answered: [String]) {
        let acknowledged = Acknowledged()
        let (ada, groupId, started) = try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)
            async let uploads: Void = Self.uploadUntilStopped(client, as: bo, group: group.id, into: acknowledged)
            do {
                while acknowledged.count < 3 { try await Task.sleep(for: .milliseconds(20)) }
                var started = ContinuousClock.now, answeredDuring = 0, tried = 0
                while answeredDuring == 0 && tried < tries {
                    started = .now
                    try await backup()
                    answeredDuring = acknowledged.between(started, .now)
                    tried += 1
                }
                #expect(answeredDuring > 0, "no upload was answered while any of \(tried) backups ran: the uploads were held up, or over")
                acknowledged.stop()
                try await uploads
                return (ada, group.id, started)
            } catch {
                acknowledged.stop()
                try? await uploads
                throw error
            }
        }
        return (ada, groupId, acknowledged.before(started))
    }

    /// What a restored store and data folder must hold: every photo answered before the backup
    /// began, every photo's files, the players and the group.
    static func expectRestored(
        _ copy: any GroupieStore, data restored: String, original data: String, player: TestPlayer, groupId: String, answered: [String]
    ) async throws {
        #expect(answered.count >= 3)
        for id in answered {
            #expect(try await copy.photo(id: id) != nil, "photo \(id), answered 201 before the backup began, is restored")
        }
        #expect(try await copy.player(id: player.id)?.name == "Ada")
        #expect(try await copy.currentGroup(of: player.id)?.id == groupId)
        let stored = try await copy.photos(groupId: groupId, missionId: nil, before: nil, limit: 1000)
        #expect(stored.count >= answered.count)
        // Every photo of the copy, also those answered while it was taken, has all its files.
        try Self.expectFiles(of: stored, in: restored, sameAs: data)
        #expect(FileManager.default.contents(atPath: restored + "/url-signing.key") == FileManager.default.contents(atPath: data + "/url-signing.key"))
        let mode = try FileManager.default.attributesOfItem(atPath: restored)[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    @Test("A backup taken during uploads restores into a fresh folder with every photo answered before it began, and its files")
    func backupDuringUploads() async throws {
        let server = try PhotoRouteTests.server()
        let data = server.configuration.dataDirectory
        let backup = server.root + "/backup", restored = server.root + "/restored"
        let (ada, groupId, answered) = try await Self.uploadWhileBackingUp(server) {
            let result = try await CommandLineTests.run(["backup", backup, "--data", data])
            #expect(result.status == 0, "\(result.errors)")
            #expect(result.output.contains("backed up \(data) to \(backup):"), "\(result.output)")
        }
        let result = try await CommandLineTests.run(["restore", backup, "--data", restored])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("every checksum as in its manifest"), "\(result.output)")
        let copy = try SQLiteStore.open(atPath: restored + "/groupie.sqlite")
        try await Self.expectRestored(copy, data: restored, original: data, player: ada, groupId: groupId, answered: answered)
    }

    @Test("On PostgreSQL, pg_dump then `groupie backup` during uploads, restored with pg_restore and `groupie restore`, hold every photo answered before")
    func backupOnPostgres() async throws {
        var server = try PhotoRouteTests.server()
        let url = try await TestPostgres.freshDatabase()
        server.configuration.databaseURL = url
        let data = server.configuration.dataDirectory
        let backup = server.root + "/backup", dump = server.root + "/groupie.pgdump", restored = server.root + "/restored"
        let (ada, groupId, answered) = try await Self.uploadWhileBackingUp(server) {
            try await TestPostgres.tool("pg_dump", ["--format=custom", "--file=\(dump)", url])
            let result = try await CommandLineTests.run(["backup", backup, "--data", data, "--database", url])
            #expect(result.status == 0, "\(result.errors)")
            #expect(result.output.contains("the database is in PostgreSQL"), "\(result.output)")
        }
        #expect(!FileManager.default.fileExists(atPath: backup + "/groupie.sqlite"))
        let copyURL = try await TestPostgres.freshDatabase()
        try await TestPostgres.tool("pg_restore", ["--no-owner", "--dbname=\(copyURL)", dump])
        let result = try await CommandLineTests.run(["restore", backup, "--data", restored])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("restore its pg_dump too"), "\(result.output)")
        let copy = try await PostgresStore.open(url: copyURL, logger: CommandLineTests.logger)
        defer { copy.close() }
        try await Self.expectRestored(copy, data: restored, original: data, player: ada, groupId: groupId, answered: answered)
    }

    @Test("A second backup into the same folder copies only what is new; a restore refuses a damaged backup, a folder in use or one holding data")
    func incrementalAndRefusals() async throws {
        let server = try PhotoRouteTests.server()
        let data = server.configuration.dataDirectory
        let backup = server.root + "/backup"
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            for photo in Self.photos.prefix(2) {
                #expect(try await PhotoRouteTests.upload(client, photo, as: ada, group: group.id).0.status == .created)
            }
            let first = try await CommandLineTests.run(["backup", backup, "--data", data])
            #expect(first.output.contains(": 10 files, 10 copied"), "the database, 2 × 4 photo files and the key: \(first.output)")
            let again = try await CommandLineTests.run(["backup", backup, "--data", data])
            #expect(again.output.contains(": 10 files, 1 copied"), "only the database: \(again.output)")
            let (added, answer) = try await PhotoRouteTests.upload(client, Self.photos[2], as: ada, group: group.id)
            #expect(added.status == .created)
            let third = try await CommandLineTests.run(["backup", backup, "--data", data])
            #expect(third.output.contains(": 14 files, 5 copied"), "the database and the new photo's 4 files: \(third.output)")

            // A photo deleted goes from the next backup with its four files; the collages, drawn
            // again when asked for, are never copied.
            let photo = try #require(answer["photo"] as? [String: Any]), photoId = try #require(photo["id"] as? String)
            let blobsBefore = Set(FileCopy.files(under: backup + "/blobs"))
            #expect(try await client.send(.delete, "/api/v1/photos/\(photoId)", headers: ada.auth).0.status == .noContent)
            try FileManager.default.createDirectory(atPath: data + "/collages", withIntermediateDirectories: true)
            try Data("a collage".utf8).write(to: URL(fileURLWithPath: data + "/collages/drawn.jpg"))
            let fourth = try await CommandLineTests.run(["backup", backup, "--data", data])
            #expect(fourth.output.contains(": 10 files, 1 copied") && fourth.output.hasSuffix("4 removed\n"), "\(fourth.output)")
            let blobsAfter = Set(FileCopy.files(under: backup + "/blobs"))
            #expect(blobsBefore.subtracting(blobsAfter).count == 4 && blobsAfter.isSubset(of: blobsBefore))
            #expect(!FileManager.default.fileExists(atPath: backup + "/collages"), "collages/ is left out")
            let listed = try #require(FileManager.default.contents(atPath: backup + "/manifest.json"))
            #expect(!String(decoding: listed, as: UTF8.self).contains("collages/"))

            // While the server runs, its data folder is not replaced, even when asked to.
            let inUse = try await CommandLineTests.run(["restore", backup, "--data", data, "--replace"])
            #expect(inUse.status != 0 && inUse.errors.contains("A Groupie server is using"), "\(inUse.errors)")
        }
        let holding = try await CommandLineTests.run(["restore", backup, "--data", data])
        #expect(holding.status != 0 && holding.errors.contains("holds a data folder already"), "\(holding.errors)")
        // Stopped, it is replaced when asked, and kept beside.
        let replaced = try await CommandLineTests.run(["restore", backup, "--data", data, "--replace"])
        #expect(replaced.status == 0, "\(replaced.errors)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: server.root).filter { $0.hasPrefix("data.before-restore-") }
        #expect(kept.count == 1 && FileManager.default.fileExists(atPath: server.root + "/" + (kept.first ?? "") + "/groupie.sqlite"))
        #expect(try SQLiteStore.integrityCheck(ofFileAt: data + "/groupie.sqlite") == "ok")

        // A folder that holds other files is no place for a backup.
        try FileManager.default.createDirectory(atPath: server.root + "/other", withIntermediateDirectories: true)
        try Data("notes".utf8).write(to: URL(fileURLWithPath: server.root + "/other/notes.txt"))
        let elsewhere = try await CommandLineTests.run(["backup", server.root + "/other", "--data", data])
        #expect(elsewhere.status != 0 && elsewhere.errors.contains("holds files that are not a Groupie backup"), "\(elsewhere.errors)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.root + "/other") == ["notes.txt"])

        // One byte of one photo file changed: refused, naming the file, and nothing written.
        let manifest = try #require(FileManager.default.contents(atPath: backup + "/manifest.json"))
        let files = try #require((try JSONSerialization.jsonObject(with: manifest) as? [String: Any])?["files"] as? [String: Any])
        let blob = try #require(files.keys.sorted().first { $0.hasSuffix("-thumb.jpg") })
        var bytes = try #require(FileManager.default.contents(atPath: backup + "/" + blob))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: backup + "/" + blob))
        let damaged = try await CommandLineTests.run(["restore", backup, "--data", server.root + "/fresh"])
        #expect(damaged.status != 0 && damaged.errors.contains("\(blob) does not have the checksum the manifest gives"), "\(damaged.errors)")
        #expect(!FileManager.default.fileExists(atPath: server.root + "/fresh"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.root).allSatisfy { !$0.contains("restoring") }, "no half-restored folder")

        // A backup whose manifest is gone did not finish.
        try FileManager.default.removeItem(atPath: backup + "/manifest.json")
        let unfinished = try await CommandLineTests.run(["restore", backup, "--data", server.root + "/fresh"])
        #expect(unfinished.status != 0 && unfinished.errors.contains("holds no manifest.json"), "\(unfinished.errors)")
    }
}
