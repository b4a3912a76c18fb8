import Foundation
@testable import GroupieServer
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Yams

@Suite("System routes and start-up")
struct SystemRouteTests {
    @Test("/healthz answers with the database and venue count")
    func health() async throws {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        try await server.test { client in
            let (response, body) = try await client.json("/healthz")
            #expect(response.status == .ok)
            #expect(body["status"] as? String == "ok")
            #expect(body["database"] as? String == "ok")
            #expect(body["venues"] as? Int == 1)
        }
        #expect(FileManager.default.fileExists(atPath: server.configuration.dataDirectory + "/groupie.sqlite"))
    }

    @Test("A database found damaged while serving turns /healthz and /readyz to 503 \"damaged\", and the request that found it gets 500")
    func damagedWhileServing() async throws {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        try await server.test { client in
            _ = try await client.newPlayer("Ada")
            #expect(try await client.json("/healthz").1["database"] as? String == "ok")
            // The file is damaged under the running server, as a failing disk or a copy over it
            // would: a page the file does not have, "database disk image is malformed" at the next read.
            try await CommandLineTests.movePlayerTable(in: server.configuration.dataDirectory + "/groupie.sqlite", to: "999999")
            let (refused, problem) = try await client.send(.post, "/api/v1/players", json: #"{"name": "Bo"}"#)
            #expect(refused.status == .internalServerError && problem["code"] as? String == "internal-error", "\(problem)")
            for path in ["/healthz", "/readyz"] {
                let (response, body) = try await client.json(path)
                #expect(response.status == .serviceUnavailable, "\(path)")
                #expect(body["database"] as? String == "damaged", "\(path): \(body)")
            }
        }
    }

    @Test("/readyz and /healthz answer 503 while PostgreSQL is down, before the connection's timeout, and 200 once it is back")
    func readinessFollowsPostgres() async throws {
        // A cluster of the test's own: the one every other test shares keeps running.
        let cluster = try await TestPostgres.Cluster()
        defer { cluster.remove() }
        var server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        // A connection's own timeout far beyond the second a health check waits: an answer
        // that waited for it would show, whatever the machine's speed.
        let connectTimeout = Duration.seconds(120)
        let url = try await cluster.freshDatabase()
        server.configuration.databaseURL = url + (url.contains("?") ? "&" : "?") + "connect_timeout=120"
        // The application sweeps old groups once as it starts; the stop may catch that sweep
        // holding its lock, and the application must still stop (`PostgresOutageTests`).
        // Every wait below is for a change of state; its limit is a bound on a hang.
        let app = server
        try await within(.seconds(600), "the application on its own PostgreSQL") {
            try await app.test { client in
                func probe(_ uri: String) async throws -> (status: HTTPResponse.Status, body: [String: Any], headers: HTTPFields, took: Duration) {
                    let start = ContinuousClock.now
                    let response = try await within(connectTimeout, uri) { try await client.execute(uri: uri, method: .get) { $0 } }
                    let body = (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any] ?? [:]
                    return (response.status, body, response.headers, ContinuousClock.now - start)
                }
                // Ready once a health check has had its answer, which a busy machine may delay.
                var ready = try await probe("/readyz")
                try await eventually(.seconds(180), "/readyz answering 200", every: .milliseconds(200)) {
                    ready = try await probe("/readyz")
                    return ready.status == .ok
                }
                #expect(ready.body["status"] as? String == "ready" && ready.body["backend"] as? String == "postgresql")
                #expect(ready.body["database"] as? String == "ok" && ready.body["venues"] as? Int == 1)

                try await cluster.stop()
                let down = try await probe("/readyz")
                #expect(down.status == .serviceUnavailable)
                #expect(down.headers[.contentType]?.hasPrefix("application/json") == true)
                #expect(down.headers[.cacheControl] == "no-store")
                #expect(down.body["status"] as? String == "not ready" && down.body["backend"] as? String == "postgresql", "\(down.body)")
                #expect(down.body["database"] as? String == "unreachable" && down.body["venues"] as? Int == 1, "\(down.body)")
                #expect(down.took < connectTimeout / 2, "a database that does not answer is down after a second, not after the connection's timeout")
                let failing = try await probe("/healthz")
                #expect(failing.status == .serviceUnavailable, "/healthz answers 503 when the database does not, as the OpenAPI document says")
                #expect(failing.body["status"] as? String == "failing" && failing.body["database"] as? String == "unreachable", "\(failing.body)")
                #expect(failing.took < connectTimeout / 2)

                try await cluster.restart()
                // The pool connects again after its back-off, which grew while the server was down.
                var back = try await probe("/readyz")
                try await eventually(.seconds(180), "/readyz answering 200 after the restart", every: .milliseconds(200)) {
                    back = try await probe("/readyz")
                    return back.status == .ok
                }
                #expect(back.body["status"] as? String == "ready" && back.body["database"] as? String == "ok")
                try await eventually(.seconds(180), "/healthz answering 200 after the restart", every: .milliseconds(200)) {
                    try await probe("/healthz").status == .ok
                }
                // And the store works again, not only its `SELECT 1`.
                let ada = try await client.newPlayer("Ada")
                #expect(try await client.newGroup(by: ada).code.count > 0)
            }
        }
    }

    @Test("/sw.js is the client's service worker, at the root, never cached stale; the manifest names the client")
    func serviceWorker() async throws {
        let server = try TestServer.samples()
        try await server.test { client in
            let script = try await client.execute(uri: "/sw.js", method: .get) { $0 }
            #expect(script.status == .ok)
            #expect(script.headers[.contentType]?.hasPrefix("text/javascript") == true)
            #expect(script.headers[.cacheControl] == "no-cache")
            let text = String(buffer: script.body)
            #expect(text.contains("addEventListener('fetch'"))
            // Every file the worker keeps at install exists: one missing file fails the whole install.
            let shell = try #require(text.firstRange(of: "const SHELL_FILES")).upperBound
            let list = text[shell...].prefix { $0 != ";" }
            let names = list.matches(of: /'([a-z0-9\/.-]+\.(js|css|json|svg|png))'/).map({ String($0.output.1) })
            // The list is read at all, and holds every module and style sheet of the client: one
            // left out is missing offline.
            let folder = TestServer.repository.appendingPathComponent("assets/web")
            let files = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
            let modules = files.filter { ($0.hasSuffix(".js") || $0.hasSuffix(".css")) && $0 != "sw.js" }
            #expect(modules.count >= 20)
            #expect(Set(modules).subtracting(names).isEmpty, "not kept offline: \(Set(modules).subtracting(names).sorted())")
            for name in names {
                #expect(try await client.execute(uri: "/assets/web/" + name, method: .get) { $0.status } == .ok, "\(name)")
            }
            let (_, manifest) = try await client.json("/assets/web/manifest.json")
            #expect(manifest["start_url"] as? String == "/")
            #expect((manifest["icons"] as? [[String: Any]])?.isEmpty == false)
        }
    }

    @Test("/metrics is Prometheus text with request and venue metrics")
    func metrics() async throws {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        try await server.test { client in
            _ = try await client.json("/api/v1/venues")
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
                let text = String(buffer: response.body)
                #expect(text.contains("# TYPE groupie_venues_served gauge"))
                #expect(text.contains("hb_requests"))
            }
        }
    }

    @Test("/metrics shows the C heap's size once the heap service has run")
    func heapMetrics() async throws {
        let fileIO = FileIO(threads: 1)
        await HeapService(fileIO: fileIO).pass()
        try await fileIO.shutdown()
        let server = try TestServer()
        try await server.test { client in
            try await client.execute(uri: "/metrics", method: .get) { response in
                let lines = String(buffer: response.body).split(separator: "\n")
                for name in ["groupie_heap_in_use_bytes", "groupie_heap_free_bytes"] {
                    let sample = lines.first { $0.hasPrefix(name + " ") }
                    let value = sample.flatMap { Double($0.split(separator: " ").last ?? "") }
                    #expect(value != nil, "\(name) missing")
                    if name == "groupie_heap_in_use_bytes" { #expect((value ?? 0) > 0) }
                }
            }
        }
    }

    /// The OpenAPI document and the router must describe the same routes, both ways.
    @Test("Every route is documented in the OpenAPI document, and every documented route exists")
    func openAPIMatchesRoutes() async throws {
        let server = try TestServer()
        let router = try await GroupieRoutes.describe(server.configuration)
        let actual = Set(router.map { "\($0.method.rawValue) \($0.path)" })

        let text = try await server.test { client in
            try await client.execute(uri: "/api/v1/openapi.yaml", method: .get) { response in
                #expect(response.status == .ok)
                return String(buffer: response.body)
            }
        }
        let document = try #require(try Yams.load(yaml: text) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = try #require(document["paths"] as? [String: Any])
        var documented = Set<String>()
        for (path, item) in paths {
            for method in (item as? [String: Any] ?? [:]).keys where ["get", "post", "put", "patch", "delete"].contains(method) {
                documented.insert("\(method.uppercased()) \(path)")
            }
        }
        #expect(actual.subtracting(documented).sorted() == [], "routes missing from the OpenAPI document")
        #expect(documented.subtracting(actual).sorted() == [], "documented routes that do not exist")
    }

    @Test("The OpenAPI document is valid OpenAPI 3.1 for a standard validator")
    func openAPIIsValid() async throws {
        let path = TestServer.repository.appendingPathComponent("Sources/GroupieServer/Resources/openapi.yaml").path
        let (status, errors) = try await offPool {
            let result = try ChildProcess.run(command: "python3", [
                "-c", "import sys, yaml; from openapi_spec_validator import validate; validate(yaml.safe_load(open(sys.argv[1])))", path,
            ])
            return (result.status, result.errors)
        }
        #expect(status == 0, "\(errors)")
    }

    @Test("A missing missions folder stops the start with one clear sentence")
    func missingMissions() async throws {
        var server = try TestServer()
        server.configuration.missionsDirectory = server.root + "/no-such-folder"
        await #expect {
            _ = try await buildApplication(server.configuration)
        } throws: { error in
            "\(error)".contains("The missions folder") && "\(error)".contains("does not exist")
        }
    }

    @Test("A data path that is a file stops the start with one clear sentence")
    func dataIsAFile() async throws {
        var server = try TestServer()
        try Data("x".utf8).write(to: URL(fileURLWithPath: server.root + "/data-file"))
        server.configuration.dataDirectory = server.root + "/data-file"
        await #expect {
            _ = try await buildApplication(server.configuration)
        } throws: { error in
            "\(error)".contains("is a file, not a folder")
        }
    }

    @Test("The data folder is created when it is missing")
    func dataCreated() async throws {
        var server = try TestServer()
        server.configuration.dataDirectory = server.root + "/nested/data"
        _ = try await buildApplication(server.configuration)
        #expect(FileManager.default.fileExists(atPath: server.root + "/nested/data/groupie.sqlite"))
    }
}
