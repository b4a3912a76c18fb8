import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GRDB
@testable import GroupiePostgres
import GroupieServer
@testable import GroupieSQLite
@testable import GroupieStorage
import GroupieTestSupport
import Logging
import Testing

/// The `groupie` executable as an operator runs it.
@Suite("Command line")
struct CommandLineTests {
    static let executable = TestServer.repository.appendingPathComponent(".build/debug/groupie").path

    static var logger: Logger {
        var logger = Logger(label: "groupie-test")
        logger.logLevel = .warning
        return logger
    }

    /// Runs `groupie` to its end, on a thread of its own (`offPool`): a command may take seconds.
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, output: String, errors: String) {
        try await offPool { try runBlocking(arguments, environment: environment) }
    }

    private static func runBlocking(_ arguments: [String], environment: [String: String]) throws -> (status: Int32, output: String, errors: String) {
        let result = try ChildProcess.run(
            executable, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, directory: TestServer.repository.path
        )
        return (result.status, result.output, result.errors)
    }

    @Test("`missions validate` passes the sample venues")
    func validateSamples() async throws {
        let result = try await Self.run(["missions", "validate", "missions/"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output == "")
        #expect(result.errors.contains("0 error(s)"))
    }

    @Test("`missions validate` prints path:line:column for each problem and exits 1")
    func validateBroken() async throws {
        let corpus = "Tests/GroupieContentTests/BrokenMissions"
        let result = try await Self.run(["missions", "validate", "--assets", corpus + "/assets", corpus + "/after-unknown.yaml", corpus + "/after-cycle.yaml"])
        #expect(result.status == 1)
        #expect(result.output.split(separator: "\n") == [
            "\(corpus)/after-unknown.yaml:17:12: error: mission 'sharks' comes after unknown mission 'fsh'; did you mean 'fish'?",
            "\(corpus)/after-unknown.yaml:17:12: error: mission 'sharks' comes after unknown mission 'rays'",
            "\(corpus)/after-cycle.yaml:11:12: error: missions wait for each other in a circle: fish → sharks → rays → fish; no group could ever start them",
            "\(corpus)/after-cycle.yaml:32:12: error: mission 'octopus' comes after itself",
        ])
        #expect(result.errors.contains("2 file(s) checked: 4 error(s), 0 warning(s)"), "\(result.errors)")
    }

    @Test("`missions validate` on a path that does not exist exits 1")
    func validateMissing() async throws {
        let result = try await Self.run(["missions", "validate", "no/such/file.yaml"])
        #expect(result.status == 1)
        #expect(result.output.hasPrefix("no/such/file.yaml:1:1: error:"))
    }

    @Test("`missions validate` reports a `.yml` file, which is not read")
    func validateMisnamed() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.copyItem(atPath: "missions/art-museum.yaml", toPath: folder + "/art-museum.yaml")
        try FileManager.default.copyItem(atPath: "missions/science-centre.yaml", toPath: folder + "/science-centre.yml")
        let result = try await Self.run(["missions", "validate", "--assets", "assets", folder])
        #expect(result.status == 1)
        #expect(result.output.contains("\(folder)/science-centre.yml:1:1: error: mission files end in '.yaml'; this file is not read until it is renamed to 'science-centre.yaml'"))
        #expect(result.errors.contains("1 file(s) checked: 1 error(s)"))
    }

    @Test("`export` writes one venue to a new file, and says in one sentence what it cannot do")
    func export() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-export-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/data", withIntermediateDirectories: true)
        let noDatabase = try await Self.run(["export", "--data", folder + "/data", "--venue", "aquarium", "--to", folder + "/a.sqlite"])
        #expect(noDatabase.status != 0 && noDatabase.errors.contains("There is no SQLite database at"))
        let store = try SQLiteStore.open(atPath: folder + "/data/groupie.sqlite")
        let player = try await store.createPlayer(name: "Ada", language: nil, tokenHash: Data("t".utf8), now: Date())
        _ = try await store.createGroup(venueId: "aquarium", name: nil, creatorId: player.id, joinableFor: 3600, now: Date())
        // In the shell of the move, GROUPIE_DATABASE names the PostgreSQL database of the import
        // that follows: the export reads the data folder all the same.
        let exported = try await Self.run(
            ["export", "--data", folder + "/data", "--venue", "aquarium", "--to", folder + "/a.sqlite"],
            environment: ["GROUPIE_DATABASE": "postgres://groupie@db.internal/groupie"]
        )
        #expect(exported.status == 0, "\(exported.errors)")
        #expect(exported.output.contains("exported aquarium to \(folder)/a.sqlite: 1 player, 1 group, 0 photos"))
        let again = try await Self.run(["export", "--data", folder + "/data", "--venue", "aquarium", "--to", folder + "/a.sqlite"])
        #expect(again.status != 0 && again.errors.contains("exists already: name a new file to export to"))
        let mistyped = try await Self.run(["export", "--data", folder + "/data", "--venue", "aquarim", "--to", folder + "/c.sqlite"])
        #expect(mistyped.status != 0 && mistyped.errors.contains("No group of the venue 'aquarim' is stored"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/c.sqlite"), "a refused export leaves no file")
        let mode = try FileManager.default.attributesOfItem(atPath: folder + "/a.sqlite")[.posixPermissions] as? Int
        #expect(mode == 0o600, "names and token hashes are for the service user only")
        let postgres = try await Self.run(["export", "--database", "postgres://groupie@127.0.0.1:1/x", "--venue", "aquarium", "--to", folder + "/b.sqlite"])
        #expect(postgres.status != 0 && postgres.errors.contains("The PostgreSQL database postgres://groupie@127.0.0.1:1/x cannot be read"), "\(postgres.errors)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/b.sqlite"))
    }

    @Test("`migrate` brings a new PostgreSQL database to the current schema, saying each migration, and exits 0; run again, it applies nothing; --dry-run only says")
    func migratePostgres() async throws {
        let url = try await TestPostgres.freshDatabase()
        let versions = PostgresSchema.migrations.map(\.version)
        let named = PostgresSchema.migrations.map { "\($0.version) \($0.name)" }
        let dry = try await Self.run(["migrate", "--dry-run", "--database", url])
        #expect(dry.status == 0, "\(dry.errors)")
        #expect(dry.output == named.map { "would apply migration \($0)\n" }.joined()
            + "PostgreSQL database \(url): \(named.count) migration(s) to apply; nothing was changed\n")
        #expect(try await TestPostgres.psql(url, "SELECT to_regclass('groupie_migration') IS NULL") == "t", "a dry run changes nothing")
        let first = try await Self.run(["migrate", "--database", url])
        #expect(first.status == 0, "\(first.errors)")
        #expect(first.output == named.map { "applied migration \($0)\n" }.joined() + "PostgreSQL database \(url) is at the current schema\n")
        let recorded = try await TestPostgres.psql(url, "SELECT version || ' ' || applied_at FROM groupie_migration ORDER BY version")
        #expect(recorded.split(separator: "\n").map { Int($0.prefix { $0 != " " }) } == versions, "every migration recorded once")
        #expect(try await TestPostgres.psql(url, "SELECT to_regclass('play_group') IS NOT NULL AND to_regclass('photo') IS NOT NULL") == "t")
        // The second time through the environment, as an upgrade script may run it.
        let again = try await Self.run(["migrate"], environment: ["GROUPIE_DATABASE": url])
        #expect(again.status == 0, "\(again.errors)")
        #expect(again.output == "PostgreSQL database \(url) is at the current schema\n")
        #expect(try await Self.run(["migrate", "--dry-run", "--database", url]).output == "PostgreSQL database \(url) is at the current schema: nothing to apply\n")
        #expect(try await TestPostgres.psql(url, "SELECT version || ' ' || applied_at FROM groupie_migration ORDER BY version") == recorded, "nothing applied again")
    }

    @Test("`migrate --dry-run` on SQLite says every migration a new data folder would get and makes no file; after `migrate`, nothing")
    func migrateDryRunSQLite() async throws {
        let data = TestImages.folder + "/dry-\(UUID().uuidString)"
        let dry = try await Self.run(["migrate", "--dry-run", "--data", data])
        #expect(dry.status == 0, "\(dry.errors)")
        let lines = dry.output.split(separator: "\n")
        #expect(lines.first == "would apply migration v1 players, groups and memberships", "\(dry.output)")
        #expect(lines.last?.hasSuffix("migration(s) to apply; nothing was changed") == true, "\(dry.output)")
        #expect(!FileManager.default.fileExists(atPath: data + "/groupie.sqlite"), "a dry run makes no database")
        let migrated = try await Self.run(["migrate", "--data", data])
        #expect(migrated.status == 0, "\(migrated.errors)")
        #expect(migrated.output.contains("applied migration v1 players, groups and memberships"), "\(migrated.output)")
        let again = try await Self.run(["migrate", "--dry-run", "--data", data])
        #expect(again.output.hasSuffix("is at the current schema: nothing to apply\n"), "\(again.output)")
    }

    @Test("`export` of a venue from a data folder, `import` into PostgreSQL, and back into a SQLite data folder: its rows arrive each way; importing again is refused and changes nothing")
    func exportThenImport() async throws {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        let image = try TestImages.jpegWithEXIF(width: 800, height: 600, orientation: 1)
        let (ada, bo, group, photoId) = try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bö 🐟")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)
            let (response, body) = try await PhotoRouteTests.upload(client, image, as: bo, group: group.id, query: "?mission=sharks&task=shark")
            #expect(response.status == .created)
            return (ada, bo, group, try #require((body["photo"] as? [String: Any])?["id"] as? String))
        }
        let source = try server.database()
        let photo = try #require(try await source.photo(id: photoId))
        let events = try await source.events(groupId: group.id, after: 0, limit: 100)

        let folder = try ScratchFolder.make("groupie-import")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let export = folder + "/aquarium.sqlite"
        let exported = try await Self.run(["export", "--data", server.configuration.dataDirectory, "--venue", "aquarium", "--to", export])
        #expect(exported.status == 0, "\(exported.errors)")
        #expect(exported.output == "exported aquarium to \(export): 2 players, 1 group, 1 photo\n")

        let url = try await TestPostgres.freshDatabase()
        let exportedBytes = try Data(contentsOf: URL(fileURLWithPath: export))
        let imported = try await Self.run(["import", "--from", export, "--database", url])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: export)) == exportedBytes, "the export is only read")
        let lines = imported.output.split(separator: "\n").map(String.init)
        for line in ["player: 2 rows", "play_group: 1 row", "membership: 2 rows", "photo: 1 row", "group_event: \(events.count) rows"] {
            #expect(lines.contains(line), "\(lines)")
        }
        #expect(lines.last == "imported into \(url): 2 players, 1 group, 1 photo")

        func counts() async throws -> String {
            try await TestPostgres.psql(url, """
                SELECT (SELECT COUNT(*) FROM player), (SELECT COUNT(*) FROM play_group), (SELECT COUNT(*) FROM membership),
                       (SELECT COUNT(*) FROM photo), (SELECT COUNT(*) FROM group_event)
                """)
        }
        #expect(try await counts() == "2|1|2|1|\(events.count)")
        #expect(try await TestPostgres.psql(url, "SELECT id || ' ' || name FROM player ORDER BY name") == "\(ada.id) Ada\n\(bo.id) Bö 🐟")
        #expect(try await TestPostgres.psql(url, "SELECT id, venue_id, join_code, creator_id FROM play_group") == "\(group.id)|aquarium|\(group.code)|\(ada.id)")
        #expect(try await TestPostgres.psql(url, "SELECT player_id FROM membership WHERE left_at IS NULL ORDER BY player_id") == [ada.id, bo.id].sorted().joined(separator: "\n"))
        #expect(try await TestPostgres.psql(url, "SELECT id, group_id, photographer_id, mission_id, task_id, blob, format, width, height FROM photo")
            == "\(photoId)|\(group.id)|\(bo.id)|sharks|shark|\(photo.blob)|\(photo.format)|\(photo.width)|\(photo.height)")
        #expect(try await TestPostgres.psql(url, "SELECT seq FROM group_event ORDER BY seq") == events.map { String($0.seq) }.joined(separator: "\n"))

        // Read back through the store, as `serve` on PostgreSQL will.
        let store = try await PostgresStore.open(url: url, logger: Self.logger)
        defer { store.close() }
        #expect(try await store.events(groupId: group.id, after: 0, limit: 100) == events)
        #expect(try await store.photo(id: photoId) == photo)

        let again = try await Self.run(["import", "--from", export, "--database", url])
        #expect(again.status != 0)
        #expect(again.errors.contains("The PostgreSQL database already holds 1 of these groups: this database, or this venue's export, was imported before."), "\(again.errors)")
        #expect(try await counts() == "2|1|2|1|\(events.count)", "a refused import changes nothing")

        // And back: exported from PostgreSQL, imported into a new data folder's SQLite.
        let back = folder + "/back.sqlite"
        let fromPostgres = try await Self.run(["export", "--database", url, "--venue", "aquarium", "--to", back])
        #expect(fromPostgres.status == 0, "\(fromPostgres.errors)")
        #expect(fromPostgres.output == "exported aquarium to \(back): 2 players, 1 group, 1 photo\n")
        let home = folder + "/home"
        let intoSQLite = try await Self.run(["import", "--from", back, "--data", home], environment: ["GROUPIE_DATABASE": ""])
        #expect(intoSQLite.status == 0, "\(intoSQLite.errors)")
        #expect(intoSQLite.output.split(separator: "\n").last.map(String.init) == "imported into \(home)/groupie.sqlite: 2 players, 1 group, 1 photo")
        let homeStore = try SQLiteStore.open(atPath: home + "/groupie.sqlite")
        #expect(try await homeStore.events(groupId: group.id, after: 0, limit: 100) == events)
        #expect(try await homeStore.photo(id: photoId) == photo)
        let twice = try await Self.run(["import", "--from", back, "--data", home], environment: ["GROUPIE_DATABASE": ""])
        #expect(twice.status != 0 && twice.errors.contains("holds 1 of these groups already"), "\(twice.errors)")
    }

    @Test(
        "`import` of a missing file, an empty one, one that is not SQLite, SQLite that is not Groupie's or a newer Groupie's database exits non-zero, names the file, says why, and changes nothing",
        arguments: ["missing", "empty", "garbage", "foreign", "newer"]
    )
    func importBadFile(_ kind: String) async throws {
        let url = try await TestPostgres.freshDatabase()
        let store = try await PostgresStore.open(url: url, logger: Self.logger)
        defer { store.close() }
        let ada = try await store.createPlayer(name: "Ada", language: nil, tokenHash: Data("t".utf8), now: Date())
        _ = try await store.createGroup(venueId: "aquarium", name: nil, creatorId: ada.id, joinableFor: 3600, now: Date())
        let before = try await store.counts()

        let folder = try ScratchFolder.make("groupie-import")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/aquarium.sqlite"
        switch kind {
        case "empty":
            try Data().write(to: URL(fileURLWithPath: path))
        case "garbage":
            var garbage = Data("This is not a SQLite database, only what a failed copy left. ".utf8)
            garbage.append(contentsOf: (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37) })
            try garbage.write(to: URL(fileURLWithPath: path))
        case "foreign":
            // In WAL mode, which SQLite reads only with a -wal and a -shm file beside.
            let other = try DatabaseQueue(path: path)
            try await other.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
            try await other.write { db in try db.execute(sql: "CREATE TABLE visitor (name TEXT); INSERT INTO visitor VALUES ('Ada')") }
            try other.close()
        case "newer":
            let older = try DatabaseQueue(path: path)
            try SQLiteStore.migrator.migrate(older)
            try await older.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99 from a later Groupie')") }
            try older.close()
        default:
            break
        }
        let original = try? Data(contentsOf: URL(fileURLWithPath: path))

        let result = try await Self.run(["import", "--from", path, "--database", url])
        #expect(result.status != 0)
        #expect(result.output == "")
        let why = switch kind {
        case "missing": "There is no SQLite database at \(path)."
        case "garbage": "\(path) is not a SQLite database (it does not begin as a SQLite file does). Nothing was read or changed."
        case "newer": "\(path) was written by a newer Groupie than this one: upgrade this Groupie first. Nothing was read or changed."
        default: "\(path) holds no Groupie database (none of its tables). Nothing was read or changed."
        }
        #expect(result.errors.contains(why), "\(result.errors)")
        #expect(!result.errors.contains("Usage:"), "a file that cannot be read is no mistake in the command line")
        #expect(try await store.counts() == before)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(left == (kind == "missing" ? [] : ["aquarium.sqlite"]), "no file made beside it")
        if let original { #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original, "the file is left as it was") }
    }

    @Test(
        "`migrate` against a database that does not exist, a role that does not exist or a port where nothing listens fails at once with PostgreSQL's reason",
        arguments: ["database", "role", "port"]
    )
    func migrateUnreachable(_ kind: String) async throws {
        let url = try await TestPostgres.freshDatabase()
        guard var components = URLComponents(string: url) else { throw CocoaError(.coderInvalidValue) }
        switch kind {
        case "database": components.path = "/groupie_no_such_database"
        case "role": components.user = "groupie_no_such_role"
        default: components.port = 1  // tcpmux: nothing listens there
        }
        let started = ContinuousClock.now
        let result = try await Self.run(["migrate", "--database", components.string!])
        #expect(ContinuousClock.now - started < .seconds(20), "the pool would retry for a minute")
        #expect(result.status != 0)
        let why = switch kind {
        case "database": #"database "groupie_no_such_database" does not exist (SQLSTATE 3D000)"#
        case "role": #"role "groupie_no_such_role" does not exist (SQLSTATE 28000)"#
        default: ":1: Connection refused"  // each address tried, with the system's words
        }
        #expect(result.errors.contains("cannot be migrated: "), "\(result.errors)")
        #expect(result.errors.contains(why), "\(result.errors)")
        #expect(!result.errors.contains("SingleConnectionFailure"), "\(result.errors)")
        #expect(!result.errors.contains("Usage:"))
    }

    @Test("`serve` with a missing folder says so in one sentence and exits")
    func serveMissingFolder() async throws {
        let result = try await Self.run(["serve", "--missions", "/no/such/missions", "--port", "0"])
        #expect(result.status != 0)
        #expect(result.errors.contains("groupie: The missions folder /no/such/missions does not exist"))
    }

    @Test("`serve` reads its settings from GROUPIE_* variables and rejects bad ones")
    func serveEnvironment() async throws {
        let result = try await Self.run(["serve"], environment: ["GROUPIE_PORT": "eighty"])
        #expect(result.status != 0)
        #expect(result.errors.contains("The port must be a number from 0 to 65535, not 'eighty'."))
    }

    @Test("`serve` takes a config file from --config or GROUPIE_CONFIG, below the environment and the command line")
    func serveConfigFile() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-\(UUID().uuidString)").path
        let path = try SettingsTests.file(#"{"missions": "/no/such/file-missions", "port": 0, "data": "\#(data)"}"#)
        defer { try? FileManager.default.removeItem(atPath: path); try? FileManager.default.removeItem(atPath: data) }
        func missions(_ arguments: [String], _ environment: [String: String] = [:]) async throws -> String {
            let result = try await Self.run(["serve"] + arguments, environment: environment)
            #expect(result.status != 0)
            return result.errors
        }
        #expect(try await missions(["--config", path]).contains("The missions folder /no/such/file-missions does not exist"))
        #expect(try await missions([], ["GROUPIE_CONFIG": path]).contains("The missions folder /no/such/file-missions does not exist"))
        let environment = ["GROUPIE_MISSIONS": "/no/such/environment-missions"]
        #expect(try await missions(["--config", path], environment).contains("The missions folder /no/such/environment-missions does not exist"))
        #expect(try await missions(["--config", path, "--missions", "/no/such/argument-missions"], environment)
            .contains("The missions folder /no/such/argument-missions does not exist"))

        let misspelt = try SettingsTests.file(#"{"prot": 8080}"#)
        defer { try? FileManager.default.removeItem(atPath: misspelt) }
        #expect(try await missions(["--config", misspelt]).contains("The config file \(misspelt) has an unknown setting 'prot'."))
    }
}
