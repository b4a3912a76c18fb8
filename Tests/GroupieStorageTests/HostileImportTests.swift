import Foundation
import GRDB
import GroupieCore
@testable import GroupiePostgres
@testable import GroupieSQLite
@testable import GroupieStorage
import GroupieTestSupport
import Testing

/// The third attack's export: a normal export of one venue, edited by whoever made it, then
/// imported into a database that holds another venue, its staff and its photos.
@Suite("Third attack: an edited export")
struct HostileImportTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let contract = StoreContractTests()

    /// The edits that must refuse the whole file, and what the refusal names.
    enum Edit: String, CaseIterable, CustomTestStringConvertible {
        case emptyBlob, pathBlob, oldGroup, otherVenueMembership, nulInEvent, unknownFormat, strayPlayerAnswer, foreignEvent
        var testDescription: String { rawValue }

        /// The SQL run on the file; `:other` is the target's other venue's group.
        var sql: String {
            switch self {
            case .emptyBlob: "UPDATE photo SET blob = ''"
            case .pathBlob: "UPDATE photo SET blob = '../../etc/passwd'"
            case .oldGroup: "UPDATE play_group SET created_at = created_at - 20 * 365 * 86400"
            case .otherVenueMembership:
                "INSERT INTO membership (group_id, player_id, joined_at, left_at) SELECT ':other', id, created_at, created_at + 1 FROM player LIMIT 1"
            // A NUL, escaped in an event's JSON as SQLite keeps it: PostgreSQL's JSON refuses it.
            case .nulInEvent: #"UPDATE group_event SET data = '{"name":"A\u0000da"}' WHERE seq = 1"#
            case .unknownFormat: "UPDATE photo SET format = 'svg'"
            case .strayPlayerAnswer:
                """
                INSERT INTO player (id, name, language, token_hash, created_at) VALUES ('0123456789abcdef0123456789abcdef', 'Eve', 'en', x'00', 1800000000);
                INSERT INTO task_answer (group_id, mission_id, task_id, player_id, answer, correct, answered_at)
                    SELECT id, 'q', 'colour', '0123456789abcdef0123456789abcdef', '1', 0, 1800000000 FROM play_group
                """
            case .foreignEvent: "UPDATE group_event SET group_id = ':other' WHERE seq = 1"
            }
        }

        /// The table the refusal names.
        var table: String {
            switch self {
            case .emptyBlob, .pathBlob, .unknownFormat: "photo"
            case .oldGroup: "play_group"
            case .otherVenueMembership: "membership"
            case .nulInEvent: "group_event"
            case .strayPlayerAnswer: "task_answer"
            case .foreignEvent: "group_event"
            }
        }
    }

    /// An export of venue `v` (Ada's group with Bo and Bo's photo, staff of the venue and an
    /// admin), and a target database of `backend` holding venue `w`: Cy's group with a photo,
    /// and its own admin.
    func prepare(_ backend: Backend) async throws -> (file: String, target: any GroupieStore, other: Group) {
        let origin = try #require(try await Backend.sqlite.open() as? SQLiteStore)
        let (ada, bo, group) = try await contract.pair(in: origin)
        _ = try await origin.addPhoto(contract.photo(group, by: bo, "a", "1"), venue: contract.venue, now: now.addingTimeInterval(60))
        _ = try await origin.answerTask(
            groupId: group.id, task: GroupProgress.TaskKey(missionId: "q", taskId: "colour"), given: .choice(1), by: ada, venue: contract.quizVenue,
            now: now.addingTimeInterval(61)
        )
        _ = try await origin.addStaff(email: "v@museum.org", passwordHash: "h", role: .editor, venueIds: ["v"], now: now)
        _ = try await origin.addStaff(email: "admin@museum.org", passwordHash: "h", role: .admin, venueIds: [], now: now)
        let folder = try ScratchFolder.make("groupie-hostile-import")
        let file = folder + "/v.sqlite"
        _ = try await origin.exportVenue("v", to: file)

        let target = try await backend.open()
        let cy = try await contract.player("Cy", in: target)
        let other = try await target.createGroup(venueId: "w", name: "W", creatorId: cy.id, joinableFor: 3600, now: now).group
        _ = try await target.addPhoto(contract.photo(other, by: cy, nil, nil), venue: contract.venue, now: now)
        _ = try await target.addStaff(email: "admin@museum.org", passwordHash: "target's", role: .admin, venueIds: [], now: now)
        return (file, target, other)
    }

    /// Runs `sql` on the file as its maker could, foreign keys and all checks off.
    func edit(_ file: String, _ sql: String) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let queue = try DatabaseQueue(path: file, configuration: configuration)
        try queue.writeWithoutTransaction { db in try db.execute(sql: sql) }
        try queue.close()
    }

    func importing(_ file: String, into target: any GroupieStore, filter: ImportFilter = ImportFilter()) async throws -> [(table: String, rows: Int)] {
        switch target {
        case let sqlite as SQLiteStore: try await sqlite.importRows(fromFile: file, filter: filter)
        case let postgres as PostgresStore: try await postgres.importRows(from: try SQLiteStore.openExisting(atPath: file), filter: filter)
        default: throw ImportRefusal.missingStaff(["no import into \(type(of: target))"])
        }
    }

    @Test("An edited row refuses the whole file, named by table and number, and nothing is written", arguments: Backend.chosen, Edit.allCases)
    func refusedRow(_ backend: Backend, _ edit: Edit) async throws {
        let (file, target, other) = try await prepare(backend)
        try self.edit(file, edit.sql.replacingOccurrences(of: ":other", with: other.id))
        let before = try await target.counts()
        let staff = try await target.allStaff()
        do {
            _ = try await importing(file, into: target, filter: ImportFilter(staff: ["v@museum.org"]))
            Issue.record("the edited file was imported")
        } catch let refusal as ImportRefusal {
            guard case .row(let table, let number, _, _) = refusal else { throw refusal }
            #expect(table == edit.table, "\(refusal)")
            #expect(number >= 1)
            #expect(refusal.description.hasPrefix("Refused: row \(number) of \(edit.table)") && refusal.description.hasSuffix("Nothing was copied."))
        }
        #expect(try await target.counts() == before, "nothing written")
        #expect(try await target.allStaff() == staff)
    }

    @Test("Sessions never come, staff only as named, and no audit line in a name the operator did not give", arguments: Backend.chosen)
    func plantedStaff(_ backend: Backend) async throws {
        let (file, target, _) = try await prepare(backend)
        let eve = "e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5"
        let token = Data("known token".utf8)
        try edit(file, """
            INSERT INTO staff (id, email, password_hash, role, created_at) VALUES ('\(eve)', 'eve@example.org', 'known', 'admin', 1800000000);
            INSERT INTO staff_session (token_hash, staff_id, csrf_token, created_at, expires_at)
                VALUES (x'\(token.map { String(format: "%02x", $0) }.joined())', '\(eve)', 'c', 1800000000, 4102444800);
            INSERT INTO staff_session (token_hash, staff_id, csrf_token, created_at, expires_at)
                SELECT x'01', id, 'c', 1800000000, 4102444800 FROM staff WHERE email = 'admin@museum.org';
            INSERT INTO staff_audit (at, staff_email, venue_id, action, subject, reason)
                VALUES (1800000000, 'admin@museum.org', 'w', 'photo deleted', 'x', 'forged');
            """)
        let targetAdmin = try #require(try await target.allStaff().first { $0.email == "admin@museum.org" })
        // Without --staff: the visits come, no account does.
        let copied = try await importing(file, into: target)
        #expect(copied.first { $0.table == "play_group" }?.rows == 1)
        #expect(copied.first { $0.table == "staff_session" }?.rows == 0)
        #expect(try await target.allStaff().map(\.email) == ["admin@museum.org"])
        #expect(try await target.allStaff().first { $0.email == "admin@museum.org" } == targetAdmin, "the target's admin is untouched")
        #expect(try await target.staffSession(tokenHash: token, now: now) == nil)
        #expect(try await target.staffSession(tokenHash: Data([1]), now: now) == nil)
        #expect(try await target.auditLog(venueIds: nil, staffEmail: "", limit: 50).allSatisfy { $0.reason != "forged" })

        // Named, an account of the file comes with its venue; another account under an e-mail
        // the database has is refused, and still no session comes.
        let again = try await prepare(backend)
        await #expect(throws: ImportRefusal.staffExists("admin@museum.org")) {
            try await importing(again.file, into: again.target, filter: ImportFilter(staff: ["admin@museum.org"]))
        }
        await #expect(throws: ImportRefusal.missingStaff(["nobody@museum.org"])) {
            try await importing(again.file, into: again.target, filter: ImportFilter(staff: ["nobody@museum.org"]))
        }
        _ = try await importing(again.file, into: again.target, filter: ImportFilter(staff: ["V@museum.org"]))
        #expect(try await again.target.allStaff().map(\.email).sorted() == ["admin@museum.org", "v@museum.org"])
        #expect(try await again.target.allStaff().first { $0.email == "v@museum.org" }?.venueIds == ["v"])
    }

    @Test("A blob name that is not a full hash reaches no file: not read, written or removed")
    func blobNames() throws {
        let folder = try ScratchFolder.make("groupie-blob-names")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let blobs = try BlobStore(directory: folder + "/blobs")
        let real = StoreContractTests.newBlob()
        try FileManager.default.createDirectory(atPath: folder + "/blobs/" + real.prefix(2), withIntermediateDirectories: true)
        try Data("photo".utf8).write(to: URL(fileURLWithPath: try blobs.path(blob: real, variant: ".jpg")))
        for name in ["", real.prefix(2) + "", String(real.dropLast()), real.uppercased(), "../" + real.dropFirst(3), real + "/", "..", "*"] {
            #expect(throws: NotABlobName.self) { try blobs.path(blob: String(name), variant: ".jpg") }
            blobs.removeFiles(of: String(name))
        }
        #expect(throws: NotABlobName.self) { try blobs.path(blob: real, variant: "/../../x") }
        #expect(FileManager.default.fileExists(atPath: try blobs.path(blob: real, variant: ".jpg")), "every other file stays")
        blobs.removeFiles(of: real)
        #expect(!FileManager.default.fileExists(atPath: try blobs.path(blob: real, variant: ".jpg")))
    }
}
