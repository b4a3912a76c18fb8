import Foundation
import GroupieContent
import GroupieImaging
import GroupieStorage
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// Builds the whole server from its configuration; `groupie serve` and the tests both call this.
public func buildApplication(
    _ configuration: ServerConfiguration,
    logger existingLogger: Logger? = nil
) async throws -> some ApplicationProtocol {
    var logger = existingLogger ?? Logger(label: "groupie")
    logger.logLevel = configuration.logLevel
    let dependencies = try await ServerDependencies.open(configuration, logger: logger)
    let router = try buildRouter(dependencies, configuration: configuration)
    let reloadService = MissionReloadService(
        reloader: dependencies.reloader, interval: configuration.missionReloadInterval, logger: logger,
        onChange: { changes in
            VenueMetrics.reloads.increment()
            VenueMetrics.update(catalog: dependencies.catalog)
            for change in changes {
                guard case .published(let venueId) = change,
                    let groups = try? await dependencies.database.activeGroupIds(venueId: venueId)
                else { continue }
                for groupId in groups {
                    await dependencies.events.emit(groupId: groupId, [.init(type: "venue-updated", fields: ["venueId": venueId])])
                }
            }
        }
    )
    let timeouts = configuration.timeouts
    let maxConnections = ConnectionLimit.allowed(configuration.maxConnections, logger: logger)
    return Application(
        router: router,
        server: .http1(configuration: .init(additionalChannelHandlers: [ConnectionTimeoutHandler(timeouts: timeouts)])),
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port), serverName: "Groupie",
            availableConnectionsDelegate: MaximumAvailableConnections(maxConnections)
        ),
        services: [
            reloadService,
            RetentionService(
                database: dependencies.database, blobs: dependencies.blobs, collages: dependencies.collages,
                retention: TimeInterval(configuration.retention.components.seconds),
                interval: configuration.retentionSweepInterval, clock: configuration.clock, logger: logger
            ),
        ],
        logger: logger
    )
}

/// What the routes stand on: the database and the venues, opened and checked before listening.
struct ServerDependencies: Sendable {
    var database: GroupieDatabase
    var catalog: VenueCatalog
    var reloader: MissionReloader
    var blobs: BlobStore
    var imageWork: ImageWorkQueue
    var hub: EventHub
    var events: GroupEvents
    var collages: CollageService
    var logger: Logger

    static func open(_ configuration: ServerConfiguration, logger: Logger) async throws -> ServerDependencies {
        try StartupCheck.requireFolder(configuration.missionsDirectory, role: "missions", option: "--missions")
        try StartupCheck.requireFolder(configuration.assetsDirectory, role: "assets", option: "--assets")
        try StartupCheck.prepareDataFolder(configuration.dataDirectory)

        let databasePath = configuration.dataDirectory + "/groupie.sqlite"
        let database: GroupieDatabase
        do {
            database = try GroupieDatabase.open(atPath: databasePath)
        } catch {
            throw StartupError(description: "The database \(StartupCheck.absolute(databasePath)) cannot be opened: \(error)")
        }

        let blobs: BlobStore
        do {
            blobs = try BlobStore(directory: configuration.dataDirectory + "/blobs")
            try blobs.removeTemporaryFiles()
        } catch {
            throw StartupError(description: "The photo folder \(StartupCheck.absolute(configuration.dataDirectory + "/blobs")) cannot be prepared: \(error)")
        }

        let catalog = VenueCatalog()
        let reloader = MissionReloader(
            folder: MissionFolder(directory: configuration.missionsDirectory, assetsDirectory: configuration.assetsDirectory),
            catalog: catalog,
            logger: logger
        )
        try await reloader.reloadChangedFilesInBackground()
        VenueMetrics.update(catalog: catalog)
        logger.info("serving \(catalog.count) venue(s) from \(StartupCheck.absolute(configuration.missionsDirectory))")
        let imageWork = ImageWorkQueue(width: configuration.imageWorkers)
        let hub = EventHub()
        let events = GroupEvents(database: database, hub: hub, clock: configuration.clock, logger: logger)
        let collages: CollageService
        do {
            collages = try CollageService(
                database: database, catalog: catalog, blobs: blobs, renderer: try CollageRenderer(), work: imageWork,
                events: events,
                directory: configuration.dataDirectory + "/collages", assetsDirectory: configuration.assetsDirectory,
                clock: configuration.clock, logger: logger
            )
        } catch {
            throw StartupError(description: "The collage folder \(StartupCheck.absolute(configuration.dataDirectory + "/collages")) cannot be prepared: \(error)")
        }
        return ServerDependencies(
            database: database, catalog: catalog, reloader: reloader, blobs: blobs,
            imageWork: imageWork, hub: hub, events: events, collages: collages, logger: logger
        )
    }
}

func buildRouter(_ dependencies: ServerDependencies, configuration: ServerConfiguration) throws -> Router<GroupieRequestContext> {
    let router = Router(context: GroupieRequestContext.self)
    router.add(middleware: RequestIdMiddleware())
    router.add(middleware: LogRequestsMiddleware(.debug))
    router.add(middleware: MetricsMiddleware())
    router.add(middleware: ProblemMiddleware())
    let routes = MethodNotAllowedMiddleware<GroupieRequestContext>.Routes()
    router.add(middleware: MethodNotAllowedMiddleware(routes: routes))
    router.add(middleware: AssetPathMiddleware(prefix: "/assets"))
    router.add(middleware: FileMiddleware(
        configuration.assetsDirectory, urlBasePath: "/assets",
        cacheControl: .init([(MediaType(type: .any), [.noCache])]), logger: dependencies.logger
    ))

    SystemController(
        database: dependencies.database, catalog: dependencies.catalog,
        metrics: GroupieMetrics.registry, openAPIDocument: try OpenAPIDocument.load()
    ).addRoutes(to: router)
    let clock = configuration.clock
    let links = JoinLinks(baseURL: configuration.resolvedPublicBaseURL)
    let authenticator = Authenticator(database: dependencies.database)
    let signer = ImageURLSigner(key: try ImageURLSigner.loadKey(dataDirectory: configuration.dataDirectory))
    let events = dependencies.events
    let processor = try PhotoProcessor()
    let limiterByAddress = JoinRateLimiter(limit: configuration.failedJoinsPerAddress, window: configuration.failedJoinWindow)
    let clientAddress = ClientAddress(trustForwardedFor: configuration.trustForwardedFor)
    JoinPageController(
        database: dependencies.database, catalog: dependencies.catalog, clock: clock,
        pagePath: configuration.assetsDirectory + "/web/index.html", limiterByAddress: limiterByAddress, clientAddress: clientAddress
    ).addRoutes(to: router)

    let api = router.group("api/v1")
    VenueController(catalog: dependencies.catalog).addRoutes(to: api)
    PlayerController(
        database: dependencies.database, authenticator: authenticator, links: links, blobs: dependencies.blobs, events: events,
        collages: dependencies.collages, clock: clock
    ).addRoutes(to: api)
    GroupController(
        database: dependencies.database, catalog: dependencies.catalog, authenticator: authenticator, links: links, clock: clock,
        limiterByPlayer: JoinRateLimiter(limit: configuration.failedJoinsPerPlayer, window: configuration.failedJoinWindow),
        limiterByAddress: limiterByAddress, clientAddress: clientAddress, signer: signer, events: events
    ).addRoutes(to: api)
    PhotoController(
        database: dependencies.database, catalog: dependencies.catalog, authenticator: authenticator,
        blobs: dependencies.blobs, processor: processor, work: dependencies.imageWork, signer: signer,
        maxUploadBytes: configuration.maxUploadBytes, events: events, collages: dependencies.collages, clock: clock
    ).addRoutes(to: api)
    CollageController(
        database: dependencies.database, catalog: dependencies.catalog, authenticator: authenticator, signer: signer,
        collages: dependencies.collages, blobs: dependencies.blobs, processor: processor,
        streamTokens: StreamTokens(signer: signer, authenticator: authenticator, clock: clock), clock: clock
    ).addRoutes(to: api)
    EventController(
        database: dependencies.database, authenticator: authenticator, hub: dependencies.hub, signer: signer,
        heartbeat: configuration.eventHeartbeat, clock: clock
    ).addRoutes(to: api)
    routes.set(router.routes.map { ($0.method, $0.path.description) })
    return router
}

/// The routes of the server, for the test that keeps the OpenAPI document honest.
public enum GroupieRoutes {
    public static func describe(_ configuration: ServerConfiguration) async throws -> [(method: HTTPRequest.Method, path: String)] {
        let dependencies = try await ServerDependencies.open(configuration, logger: Logger(label: "groupie-routes"))
        return try buildRouter(dependencies, configuration: configuration).routes.map { ($0.method, $0.path.description) }
    }
}

enum OpenAPIDocument {
    static func load() throws -> ByteBuffer {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml") else {
            throw StartupError(description: "The OpenAPI document is missing from the build; rebuild Groupie.")
        }
        return ByteBuffer(bytes: try Data(contentsOf: url))
    }
}
