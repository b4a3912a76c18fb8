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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = TestServer.repository
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outputData, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
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
        let store = try GroupieDatabase.open(atPath: folder + "/data/groupie.sqlite")
        let player = try await store.createPlayer(name: "Ada", language: nil, tokenHash: Data("t".utf8), now: Date())
        _ = try await store.createGroup(venueId: "aquarium", name: nil, creatorId: player.id, joinableFor: 3600, now: Date())
        // In the shell of the move, GROUPIE_DATABASE names the PostgreSQL database of the import
        // that follows: the export reads the data folder all the same.
        let exported = try await Self.run(
            ["export", "--data", folder + "/data", "--venue", "aquarium", "--to", folder + "/a.sqlite"],
            environment: ["GROUPIE_DATABASE": "postgres://groupie@db.internal/groupie"]
        )
        #expect(exported.status == 0, "\(exported.errors)")
        #expect(exported.output.contains("exported aquarium to \(folder)/a.sqlite: 1 players, 1 groups, 0 photos"))
        let again = try await Self.run(["export", "--data", folder + "/data", "--venue", "aquarium", "--to", folder + "/a.sqlite"])
        #expect(again.status != 0 && again.errors.contains("exists already: name a new file to export to"))
        let mistyped = try await Self.run(["export", "--data", folder + "/data", "--venue", "aquarim", "--to", folder + "/c.sqlite"])
        #expect(mistyped.status != 0 && mistyped.errors.contains("No group of the venue 'aquarim' is stored"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/c.sqlite"), "a refused export leaves no file")
        let mode = try FileManager.default.attributesOfItem(atPath: folder + "/a.sqlite")[.posixPermissions] as? Int
        #expect(mode == 0o600, "names and token hashes are for the service user only")
        let postgres = try await Self.run(["export", "--database", "postgres://localhost/x", "--venue", "aquarium", "--to", folder + "/b.sqlite"])
        #expect(postgres.status != 0 && postgres.errors.contains("Unknown option '--database'"), "\(postgres.errors)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/b.sqlite"))
    }

    @Test("`migrate` brings a new PostgreSQL database to the current schema and exits 0; run again, it applies nothing")
    func migratePostgres() async throws {
        let url = try await TestPostgres.freshDatabase()
        let versions = PostgresSchema.migrations.map(\.version)
        let first = try await Self.run(["migrate", "--database", url])
        #expect(first.status == 0, "\(first.errors)")
        #expect(first.output == "PostgreSQL database \(url) is at the current schema (migrations \(versions.map(String.init).joined(separator: ", ")))\n")
        let recorded = try await TestPostgres.psql(url, "SELECT version || ' ' || applied_at FROM groupie_migration ORDER BY version")
        #expect(recorded.split(separator: "\n").map { Int($0.prefix { $0 != " " }) } == versions, "every migration recorded once")
        #expect(try await TestPostgres.psql(url, "SELECT to_regclass('play_group') IS NOT NULL AND to_regclass('photo') IS NOT NULL") == "t")
        // The second time through the environment, as an upgrade script may run it.
        let again = try await Self.run(["migrate"], environment: ["GROUPIE_DATABASE": url])
        #expect(again.status == 0, "\(again.errors)")
        #expect(again.output == first.output)
        #expect(try await TestPostgres.psql(url, "SELECT version || ' ' || applied_at FROM groupie_migration ORDER BY version") == recorded, "nothing applied again")
    }

    @Test("`export` of a venue from a data folder, then `import` into PostgreSQL: its rows arrive; importing it again is refused and changes nothing")
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
        #expect(exported.output == "exported aquarium to \(export): 2 players, 1 groups, 1 photos\n")

        let url = try await TestPostgres.freshDatabase()
        let exportedBytes = try Data(contentsOf: URL(fileURLWithPath: export))
        let imported = try await Self.run(["import", "--from", export, "--database", url])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: export)) == exportedBytes, "the export is only read")
        let lines = imported.output.split(separator: "\n").map(String.init)
        for line in ["player: 2 rows", "play_group: 1 row", "membership: 2 rows", "photo: 1 row", "group_event: \(events.count) rows"] {
            #expect(lines.contains(line), "\(lines)")
        }
        #expect(lines.last == "imported into \(url): 2 players, 1 groups, 1 photos")

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
            try GroupieDatabase.migrator.migrate(older)
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

    @Test("`serve --help` lists every setting with its variable, file key and default")
    func serveHelp() async throws {
        let result = try await Self.run(["serve", "--help"])
        #expect(result.status == 0)
        // Unwrapped, since where a line breaks depends on the lengths of the texts.
        let help = result.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for option in [ServerOptions.configFile] + ServerOptions.all {
            #expect(help.contains(option.flag), "\(option.flag)")
            #expect(help.contains(option.variable), "\(option.variable)")
            #expect(help.contains("Default \(option.defaultText)."), "\(option.key)")
        }
        for option in ServerOptions.all {
            #expect(help.contains("\"\(option.key)\" in the file"), "\(option.key)")
        }
    }

    /// `groupie serve` on the sample venues on a free port, started; its standard error goes to
    /// `errors`, and `settings` come after the others.
    static func start(logLevel: String, errors: FileHandle = .nullDevice, settings: [String] = []) throws -> (process: Process, port: Int) {
        let server = try TestServer.samples()
        let port = TestPorts.unused()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = [
            "serve", "--port", "\(port)", "--host", "127.0.0.1", "--data", server.root + "/data",
            "--missions", server.missions, "--assets", server.assets, "--log-level", logLevel,
        ] + settings
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        return (process, port)
    }

    /// `groupie serve` on the sample venues on a free port, healthy; its standard error goes to `errors`.
    static func serve(logLevel: String, errors: FileHandle = .nullDevice) async throws -> (process: Process, port: Int) {
        let (process, port) = try start(logLevel: logLevel, errors: errors)
        var healthy = false
        for _ in 0..<100 where !healthy {
            try await Task.sleep(for: .milliseconds(100))
            if let (_, response) = try? await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/healthz")!) {
                healthy = (response as? HTTPURLResponse)?.statusCode == 200
            }
        }
        #expect(healthy)
        return (process, port)
    }

    static func post(port: Int, _ path: String, _ json: String, token: String? = nil) async throws -> [String: Any] {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = "POST"
        request.httpBody = Data(json.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, _) = try await URLSession.shared.data(for: request)
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    @Test("`serve` logs how it stores, and a request's line with the request id and the line's own metadata")
    func logLines() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-log-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let (process, port) = try await Self.serve(logLevel: "info", errors: try FileHandle(forWritingTo: log))
        defer { if process.isRunning { process.terminate() } }
        let token = try #require(try await Self.post(port: port, "/api/v1/players", #"{"name": "Ada"}"#)["token"] as? String)
        let group = try #require(try await Self.post(port: port, "/api/v1/groups", #"{"venueId": "art-museum"}"#, token: token)["group"] as? [String: Any])
        let id = try #require(group["id"] as? String)
        process.terminate()
        process.waitUntilExit()
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        // SQLite's allocations take no process-wide lock: read back from SQLite at start.
        #expect(lines.contains { $0.contains("storing in SQLite at ") && $0.contains("(synchronous FULL, checkpoints beside the writer, memory statistics off)") }, "\(lines)")
        let created = try #require(lines.first { $0.contains("group created") }, "\(lines)")
        #expect(created.contains(" info "))
        #expect(created.contains("group=\(id)") && created.contains("venue=art-museum"), "the line's own metadata")
        #expect(created.contains("hb.request.id="), "the request's metadata, set on its logger")
        #expect(lines.allSatisfy { !$0.contains(token) }, "no token in the log")
    }

    @Test("`serve` waits for a PostgreSQL that does not answer yet, says so once, and serves once it answers")
    func serveWaitsForPostgres() async throws {
        let cluster = try await TestPostgres.Cluster()
        defer { cluster.remove() }
        let url = try await cluster.freshDatabase()
        try await cluster.stop()
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-log-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        // Generous: beside the whole suite on two cores, this test may wait its turn for long.
        let (process, port) = try Self.start(
            logLevel: "info", errors: try FileHandle(forWritingTo: log), settings: ["--database", url, "--database-wait", "300"]
        )
        defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        var waiting = false
        for _ in 0..<600 where !waiting && process.isRunning {
            try await Task.sleep(for: .milliseconds(100))
            waiting = (try? String(contentsOf: log, encoding: .utf8))?.contains("waiting for PostgreSQL at ") == true
        }
        try await Task.sleep(for: .seconds(1))
        #expect(process.isRunning, "still waiting for PostgreSQL")
        try await cluster.restart()
        var ready = false
        for _ in 0..<200 where !ready && process.isRunning {
            try await Task.sleep(for: .milliseconds(100))
            if let (_, response) = try? await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/readyz")!) {
                ready = (response as? HTTPURLResponse)?.statusCode == 200
            }
        }
        let text = try String(contentsOf: log, encoding: .utf8)
        #expect(ready, "serve \(process.isRunning ? "runs" : "ended with \(process.terminationStatus)"): \(text)")
        #expect(text.components(separatedBy: "waiting for PostgreSQL at ").count == 2, "said once: \(text)")
        #expect(text.contains("storing in PostgreSQL at "))
    }

    @Test("`serve` stops gracefully on SIGTERM and SIGINT, open event streams included", arguments: [SIGTERM, SIGINT])
    func gracefulShutdown(signal: Int32) async throws {
        let (process, port) = try await Self.serve(logLevel: "warning")
        defer { if process.isRunning { process.terminate() } }
        // A phone listening to its group's events must not hold the shutdown up.
        func post(_ path: String, _ json: String, token: String? = nil) async throws -> [String: Any] {
            try await Self.post(port: port, path, json, token: token)
        }
        let token = try #require(try await post("/api/v1/players", #"{"name": "Ada"}"#)["token"] as? String)
        let group = try #require(try await post("/api/v1/groups", #"{"venueId": "art-museum"}"#, token: token)["group"] as? [String: Any])
        let stream = try EventStreamReader(port: port, path: "/api/v1/groups/\(try #require(group["id"] as? String))/events", headers: ["Authorization": "Bearer \(token)"])
        #expect(await stream.read(for: 5) { $0.contains("retry:") }.contains("retry:"))

        let signalled = ContinuousClock.now
        kill(process.processIdentifier, signal)
        for _ in 0..<140 where process.isRunning {
            try await Task.sleep(for: .milliseconds(100))
        }
        // The heartbeat comes every 15 s: well under that, and not 5 s, which beside the whole
        // suite on two cores was once missed by a tenth of a second.
        #expect(ContinuousClock.now - signalled < .seconds(12), "stopped without waiting for the stream's next heartbeat")
        #expect(!process.isRunning)
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }
}

/// Where `groupie serve` takes its settings from, and what it says about bad ones.
@Suite("Settings")
struct SettingsTests {
    /// A valid value for every setting, none of them its default.
    static let samples = [
        "host": "127.0.0.1", "port": "9090", "data": "/srv/data", "database": "postgres://groupie@db.example:5432/groupie", "databaseWait": "45", "missions": "/srv/missions", "assets": "/srv/assets",
        "publicURL": "https://groupie.example", "retentionDays": "7", "headerTimeout": "5", "bodyTimeout": "6",
        "idleTimeout": "7", "creationsPerAddress": "40", "streamsPerPlayer": "6", "maxConnections": "99", "fileWorkers": "3", "trustProxy": "true", "logLevel": "debug",
    ]

    /// A temporary file holding `json`; the caller removes it.
    static func file(_ json: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-\(UUID().uuidString).json").path
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func load(_ arguments: [String] = [], _ environment: [String: String] = [:]) async throws -> ServerConfiguration {
        try await ServerOptions.load(arguments: arguments, environment: environment)
    }

    /// The message for a configuration that is refused, with the config file's path as FILE.
    static func error(_ arguments: [String] = [], _ environment: [String: String] = [:], file json: String? = nil) async throws -> String? {
        let path = try json.map(file)
        defer { if let path { try? FileManager.default.removeItem(atPath: path) } }
        do {
            _ = try await load(arguments + (path.map { ["--config", $0] } ?? []), environment)
            return nil
        } catch {
            return path.map { "\(error)".replacingOccurrences(of: $0, with: "FILE") } ?? "\(error)"
        }
    }

    @Test("with nothing given, every setting has its default")
    func defaults() async throws {
        let configuration = try await Self.load()
        // Written down by hand, as the README's table says them; not read from the code.
        let expected = [
            "host": "0.0.0.0", "port": "8080", "data": "./data", "database": "sqlite", "databaseWait": "30",
            "missions": "./missions", "assets": "./assets", "publicURL": "http://<LAN address>:<port>",
            "retentionDays": "30", "headerTimeout": "10", "bodyTimeout": "30", "idleTimeout": "60", "creationsPerAddress": "300", "streamsPerPlayer": "4",
            "maxConnections": "4096", "fileWorkers": "8", "trustProxy": "false", "logLevel": "info",
        ]
        #expect(Set(ServerOptions.all.map(\.key)) == Set(expected.keys))
        for option in ServerOptions.all {
            #expect(option.value(configuration) == expected[option.key], "\(option.key)")
            #expect(option.defaultText == expected[option.key], "--help's default of \(option.key)")
        }
        #expect(configuration.port == 8080)
        #expect(configuration.publicBaseURL == nil)
        #expect(configuration.databaseURL == nil)
        #expect(configuration.timeouts == ConnectionTimeouts(header: .seconds(10), body: .seconds(30), idle: .seconds(60)))
    }

    @Test("every setting is read from the command line, the environment and the config file")
    func everySource() async throws {
        #expect(Set(Self.samples.keys) == Set(ServerOptions.all.map(\.key)))
        for option in ServerOptions.all {
            let sample = try #require(Self.samples[option.key])
            #expect(sample != option.defaultText, "\(option.key)")
            let arguments = option.kind == .flag ? [option.flag] : [option.flag, sample]
            #expect(option.value(try await Self.load(arguments)) == sample, "\(option.flag)")
            #expect(option.value(try await Self.load(["\(option.flag)=\(sample)"])) == sample, "\(option.flag)=")
            #expect(option.value(try await Self.load([], [option.variable: sample])) == sample, "\(option.variable)")
            // A JSON file writes numbers and booleans bare, or quoted like text.
            for json in option.kind == .text ? ["\"\(sample)\""] : [sample, "\"\(sample)\""] {
                let path = try Self.file("{\"\(option.key)\": \(json)}")
                defer { try? FileManager.default.removeItem(atPath: path) }
                #expect(option.value(try await Self.load(["--config", path])) == sample, "\(option.key): \(json)")
            }
        }
    }

    @Test("the command line beats the environment, which beats the config file, which beats the default")
    func precedence() async throws {
        let path = try Self.file(#"{"port": 1111, "host": "10.0.0.1", "logLevel": "error"}"#)
        let other = try Self.file(#"{"port": 4444}"#)
        defer { for file in [path, other] { try? FileManager.default.removeItem(atPath: file) } }
        let environment = ["GROUPIE_CONFIG": path, "GROUPIE_PORT": "2222", "GROUPIE_HOST": "10.0.0.2"]

        let everything = try await Self.load(["--port", "3333"], environment)
        #expect(everything.port == 3333)
        #expect(everything.host == "10.0.0.2")
        #expect(everything.logLevel == .error)
        #expect(everything.dataDirectory == "./data")
        #expect(try await Self.load([], environment).port == 2222)
        #expect(try await Self.load([], ["GROUPIE_CONFIG": path]).port == 1111)
        #expect(try await Self.load(["--config", other], environment).port == 2222)
        #expect(try await Self.load(["--config", other], ["GROUPIE_CONFIG": path]).port == 4444)
        // An empty variable counts as unset, so the file shows through.
        #expect(try await Self.load([], ["GROUPIE_CONFIG": path, "GROUPIE_PORT": ""]).port == 1111)
    }

    @Test("a bad value says where it came from, in one sentence", arguments: [
        (["--port", "70000"], [:], "--port: The port must be a number from 0 to 65535, not '70000'."),
        ([], ["GROUPIE_PORT": "eighty"], "GROUPIE_PORT: The port must be a number from 0 to 65535, not 'eighty'."),
        ([], ["GROUPIE_PUBLIC_URL": "ftp://x"], "GROUPIE_PUBLIC_URL: The public URL must start with http:// or https:// and name a host, not 'ftp://x'."),
        (["--retention-days", "0"], [:], "--retention-days: The retention in days must be a whole number, at least 1, not '0'."),
        ([], ["GROUPIE_IDLE_TIMEOUT": "-5"], "GROUPIE_IDLE_TIMEOUT: The idle timeout must be a whole number, at least 1, not '-5'."),
        (["--max-connections=lots"], [:], "--max-connections: The connection limit must be a whole number, at least 1, not 'lots'."),
        (["--log-level", "loud"], [:], "--log-level: The log level must be one of trace, debug, info, notice, warning, error, critical, not 'loud'."),
        ([], ["GROUPIE_TRUST_PROXY": "maybe"], "GROUPIE_TRUST_PROXY: The trust-proxy setting must be true or false (or yes/no, 1/0), not 'maybe'."),
        (["--port"], [:], "--port needs a value."),
        (["--port", "--host", "x"], [:], "--port needs a value."),
        (["--prot", "8080"], [:], "Unknown option '--prot'. The options are --config, --host, --port,"),
        (["8080"], [:], "Unexpected argument '8080': serve takes only options,"),
        ([], ["GROUPIE_CONFIG": "/no/such/groupie.json"], "The config file /no/such/groupie.json does not exist or cannot be read."),
    ] as [([String], [String: String], String)])
    func badValue(arguments: [String], environment: [String: String], message: String) async throws {
        let error = try await Self.error(arguments, environment)
        #expect(error?.hasPrefix(message) == true, "\(error ?? "no error")")
    }

    @Test("a config file with an unknown key, a value of the wrong kind or no JSON object is refused", arguments: [
        (#"{"prot": 8080}"#, "The config file FILE has an unknown setting 'prot'. The settings are host, port, data,"),
        (#"{"port": "eighty"}"#, "\"port\" in FILE: The port must be a number from 0 to 65535, not 'eighty'."),
        (#"{"port": 80.5}"#, "\"port\" in FILE must be a whole number."),
        (#"{"host": 127}"#, "\"host\" in FILE must be text, in quotes."),
        (#"{"trustProxy": "maybe"}"#, "\"trustProxy\" in FILE: The trust-proxy setting must be true or false (or yes/no, 1/0), not 'maybe'."),
        (#"{"trustProxy": [true]}"#, "\"trustProxy\" in FILE must be text, a number or true or false."),
        (#"{"missions": {"path": "x"}}"#, "\"missions\" in FILE must be text, a number or true or false."),
        (#"{"port": null}"#, "\"port\" in FILE must be text, a number or true or false."),
        (#"[8080]"#, "The config file FILE must hold one JSON object, such as {\"port\": 8080}."),
        (#"{"port": 8080"#, "The config file FILE is not valid JSON"),
    ])
    func badFile(json: String, message: String) async throws {
        let error = try await Self.error(file: json)
        #expect(error?.hasPrefix(message) == true, "\(error ?? "no error")")
    }

    @Test("a bad value in a source that does not win is not looked at")
    func overriddenValue() async throws {
        #expect(try await Self.load(["--port", "80"], ["GROUPIE_PORT": "eighty"]).port == 80)
    }

    @Test("the names come from the key the way swift-configuration spells them")
    func names() {
        let publicURL = ServerOptions.all.first { $0.key == "publicURL" }
        #expect(publicURL?.flag == "--public-url")
        #expect(publicURL?.variable == "GROUPIE_PUBLIC_URL")
        #expect(ServerOptions.configFile.variable == "GROUPIE_CONFIG")
    }

    @Test("the README's configuration table lists every setting with its variable, file key and default")
    func readmeTable() throws {
        let readme = try String(contentsOf: TestServer.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "\n## Configuration\n").dropFirst().first?.components(separatedBy: "\n## ").first)
        let rows = section.split(separator: "\n").filter { $0.hasPrefix("| `--") }.map { line in
            line.split(separator: "|").prefix(4).map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "`", with: "") }
        }
        let expected = [[ServerOptions.configFile.flag, ServerOptions.configFile.variable, "—", ServerOptions.configFile.defaultText]]
            + ServerOptions.all.map { [$0.flag, $0.variable, $0.key, $0.defaultText] }
        #expect(rows == expected)
    }
}
