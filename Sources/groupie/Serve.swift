import ArgumentParser
import Foundation
import GroupieImaging
import GroupieServer
import GroupieSQLite
import GroupieStorage
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// `groupie serve`. Its settings are listed once, in `ServerOptions`, which also reads them with
/// swift-configuration. Argument parser can only declare options as properties, one by one, so
/// here it hands the arguments over unparsed, and the help shows the list instead.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the venues of the missions folder.",
        usage: "groupie serve [--config <path>] [--<setting> <value> ...]",
        discussion: ServerOptions.help
    )

    @Argument(parsing: .allUnrecognized, help: .hidden)
    var settings: [String] = []

    func run() async throws {
        // Before anything opens SQLite: its allocations then take no process-wide lock.
        GroupieDatabase.turnOffMemoryStatistics()
        MallocArenas.limit()
        Heap.fixMmapThreshold()
        var configuration: ServerConfiguration
        do throws(SettingError) {
            configuration = try await ServerOptions.load(arguments: settings, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError(error.description)
        }

        LoggingSystem.bootstrap { [logLevel = configuration.logLevel] label in
            DeferredMetadataLogHandler(label: label, logLevel: logLevel)
        }
        if configuration.publicBaseURL == nil {
            // Without a public URL, QR codes point at the name the certificate is made out to
            // (phones refuse any other), else at this machine's address on the local network.
            if let certificate = configuration.tlsCertificate, let host = TLSFiles.preferredHost(certificate: certificate) {
                configuration.publicBaseURL = configuration.url(ofHost: host)
            } else if configuration.host == "0.0.0.0", let address = LANAddress.first() {
                configuration.publicBaseURL = configuration.url(ofHost: address)
            }
        }
        let tracing: (any Service)?
        do {
            tracing = try GroupieTracing.bootstrap(configuration)
        } catch {
            FileHandle.standardError.write(Data("groupie: traces cannot be sent to \(configuration.otlpEndpoint ?? ""): \(error)\n".utf8))
            throw ExitCode(2)
        }
        let app: any ApplicationProtocol
        let joinAt = configuration.resolvedPublicBaseURL
        do {
            // Said once the port is bound: a server that cannot bind it tells no phone to come.
            app = try await buildApplication(configuration, services: tracing.map { [$0] } ?? []) { _ in
                FileHandle.standardError.write(Data("groupie: phones join at \(joinAt) (set --public-url to change)\n".utf8))
            }
        } catch let error as StartupError {
            FileHandle.standardError.write(Data("groupie: \(error.description)\n".utf8))
            throw ExitCode(2)
        }
        do {
            try await app.runService()
        } catch let error as IOError where error.errnoCode == EADDRINUSE || error.errnoCode == EACCES {
            let why = error.errnoCode == EADDRINUSE
                ? "another program uses it; stop that program or choose another --port"
                : "this user may not bind it (ports below 1024 need a privilege); choose another --port"
            FileHandle.standardError.write(Data("groupie: cannot listen on \(configuration.host) port \(configuration.port): \(why).\n".utf8))
            throw ExitCode(2)
        }
    }
}
