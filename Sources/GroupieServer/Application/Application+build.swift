import Foundation
import GroupieContent
import GroupieImaging
import GroupiePostgres
import GroupieSQLite
import GroupieStorage
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import ServiceLifecycle

/// Builds the whole server from its configuration; `groupie serve` and the tests both call this.
public func buildApplication(
    _ configuration: ServerConfiguration,
    logger existingLogger: Logger? = nil,
    services outside: [any Service] = [],
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    var logger = existingLogger ?? Logger(label: "groupie")
    logger.logLevel = configuration.logLevel
    let tlsStart = try TLSCertificates.Start(configuration)
    let dependencies = try await ServerDependencies.open(configuration, logger: logger)
    let maxConnections = ConnectionLimit.allowed(configuration.maxConnections, logger: logger)
    let router = try buildRouter(dependencies, configuration: configuration, maxConnections: maxConnections)
    let reloadService = MissionReloadService(
        reloader: dependencies.reloader, threads: dependencies.fileIO, interval: configuration.missionReloadInterval, logger: logger,
        onChange: { changes in
            VenueMetrics.reloads.increment()
            VenueMetrics.update(catalog: dependencies.catalog)
            await VenueUpdates.announce(changes, database: dependencies.database, committed: dependencies.committed)
        }
    )
    let timeouts = configuration.timeouts
    let http1 = HTTPServerBuilder.http1(configuration: .init(additionalChannelHandlers: [ConnectionTimeoutHandler(timeouts: timeouts)]))
    var tlsServices: [any Service] = []
    let server: HTTPServerBuilder
    if let tlsStart {
        let certificates = TLSCertificates(tlsStart, interval: configuration.tlsReloadInterval, fileIO: dependencies.fileIO, clock: configuration.clock, logger: logger)
        server = try .tls(http1, tlsConfiguration: certificates.configuration)
        tlsServices.append(certificates)
        logger.info("serving HTTPS with the certificate for \(tlsStart.identity.names.joined(separator: ", ")), valid until \(tlsStart.identity.notValidAfter.formatted(.iso8601))")
        if let redirectPort = configuration.httpRedirectPort {
            tlsServices.append(HTTPSRedirect.server(
                host: configuration.host, port: redirectPort, publicURL: configuration.resolvedPublicBaseURL, timeouts: timeouts, logger: logger
            ))
        }
    } else {
        server = http1
        PlainHTTP.warnAtStart(configuration, logger: logger)
    }
    return Application(
        responder: StreamResponder(inner: router.buildResponder()),
        server: server,
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port), serverName: "Groupie",
            availableConnectionsDelegate: MaximumAvailableConnections(maxConnections)
        ),
        // Stopped in reverse order, after the server: file work outlives the work that uses it,
        // the store (PostgreSQL's pool) outlives every service that writes, and the services
        // from outside (the traces' exporter) outlive everything.
        services: outside + [dependencies.database].compactMap { $0 as? any Service } + [
            dependencies.fileIO,
            dependencies.uploadIO,
            dependencies.passwords,
            dependencies.background,
            reloadService,
            HeapService(fileIO: dependencies.fileIO),
            EventRelay(database: dependencies.database, hub: dependencies.hub, logger: logger),
            dependencies.hub,
            RetentionService(
                database: dependencies.database, files: dependencies.files, collages: dependencies.collages,
                retention: TimeInterval(configuration.retention.components.seconds),
                interval: configuration.retentionSweepInterval, clock: configuration.clock, logger: logger
            ),
        ] + tlsServices,
        onServerRunning: onServerRunning,
        logger: logger
    )
}

/// What the routes stand on: the database and the venues, opened and checked before listening.
struct ServerDependencies: Sendable {
    var database: any GroupieStore
    var catalog: VenueCatalog
    var reloader: MissionReloader
    var blobs: BlobStore
    var imageWork: ImageWorkQueue
    var fileIO: FileIO
    /// The parts of resumable uploads are written on threads of their own: no amount of upload
    /// work keeps `fileIO` from reading photos.
    var uploadIO: FileIO
    var passwords = PasswordChecks()
    var background: BackgroundWork
    var processor: PhotoProcessor
    var hub: EventHub
    /// What follows every commit (`Committed`), collages made again included.
    var committed: Committed
    var collages: CollageService
    /// The key of signed image URLs and stream tokens, shared by the instances on the data folder.
    var signingKey: Data
    var logger: Logger

    var files: PhotoFiles { PhotoFiles(blobs: blobs, processor: processor, fileIO: fileIO) }

    static func open(_ configuration: ServerConfiguration, logger: Logger) async throws -> ServerDependencies {
        try StartupCheck.requireFolder(configuration.missionsDirectory, role: "missions", option: "--missions")
        try StartupCheck.requireFolder(configuration.assetsDirectory, role: "assets", option: "--assets")
        try StartupCheck.prepareDataFolder(configuration.dataDirectory)

        // The instance's lock on the data folder first: on SQLite, a second server is refused
        // before it opens (and would migrate) the database.
        let blobs: BlobStore
        do {
            blobs = try BlobStore(directory: configuration.dataFolder.blobs)
        } catch {
            throw StartupError(description: "The photo folder \(StartupCheck.absolute(configuration.dataFolder.blobs)) cannot be prepared: \(error)")
        }
        if configuration.databaseURL == nil {
            try StartupCheck.requireAlone(on: configuration.dataDirectory, instance: blobs.temporary.instance)
        }
        blobs.removeTemporaryFiles()

        let database = try await ConfiguredStore.open(configuration, logger: logger, patience: configuration.databaseWait)

        let catalog = VenueCatalog()
        let reloader = MissionReloader(
            folder: MissionFolder(directory: configuration.missionsDirectory, assetsDirectory: configuration.assetsDirectory),
            catalog: catalog,
            logger: logger
        )
        let fileIO = FileIO(threads: configuration.fileWorkers)
        let signingKey: Data
        do {
            try await reloader.reloadChangedFiles(on: fileIO)
            // On a thread of the file pool: the key may wait up to a minute for another
            // instance's lock, and Swift's cooperative threads are few.
            let dataDirectory = configuration.dataDirectory
            signingKey = try await fileIO.run { try ImageURLSigner.loadKey(dataDirectory: dataDirectory) }
        } catch {
            try? await fileIO.shutdown()
            throw error
        }
        VenueMetrics.update(catalog: catalog)
        let uploadIO = FileIO(threads: max(2, configuration.fileWorkers / 2))
        logger.info("serving \(catalog.count) venue(s) from \(StartupCheck.absolute(configuration.missionsDirectory))")
        let imageWork = ImageWorkQueue(width: configuration.imageWorkers)
        let background = BackgroundWork()
        let hub = EventHub(heartbeat: configuration.eventHeartbeat) { [database] notice in database.announce(notice) }
        let committed = Committed(hub: hub, database: database, background: background, clock: configuration.clock, logger: logger)
        let collages: CollageService
        do {
            collages = try CollageService(
                database: database, catalog: catalog, blobs: blobs, renderer: try CollageRenderer(), work: imageWork,
                committed: committed, fileIO: fileIO, background: background,
                directory: configuration.dataFolder.collages, assetsDirectory: configuration.assetsDirectory,
                clock: configuration.clock, logger: logger
            )
        } catch {
            throw StartupError(description: "The collage folder \(StartupCheck.absolute(configuration.dataFolder.collages)) cannot be prepared: \(error)")
        }
        return ServerDependencies(
            database: database, catalog: catalog, reloader: reloader, blobs: blobs,
            imageWork: imageWork, fileIO: fileIO, uploadIO: uploadIO, background: background, processor: try PhotoProcessor(),
            hub: hub, committed: committed.redrawing(collages), collages: collages, signingKey: signingKey, logger: logger
        )
    }
}

/// The routes; `maxConnections` is what the server takes at once, of which event streams may
/// hold their share.
func buildRouter(_ dependencies: ServerDependencies, configuration: ServerConfiguration, maxConnections: Int) throws -> Router<GroupieRequestContext> {
    let router = Router(context: GroupieRequestContext.self)
    let routes = KnownRoutes()
    // A span for each request, parent of what the request does (`GroupieTracing`).
    if configuration.otlpEndpoint != nil { router.add(middleware: TracingMiddleware()) }
    router.add(middleware: RequestMetricsMiddleware())
    let templates = try PageTemplates.load()
    let pages = StaffPages(templates: templates)
    let database = dependencies.database
    router.add(middleware: ProblemMiddleware(routes: routes, staffPages: StaffErrorPages(pages: pages)) { error, logger in
        guard database.noteFailure(error) else { return }
        logger.critical(
            "the database is damaged (\(error)): stop the server, move data/groupie.sqlite aside and restore the data folder from a backup (groupie restore); /healthz and /readyz answer 503 until then"
        )
    })
    router.add(middleware: SingleQueryParameters())
    router.add(middleware: AssetPathMiddleware(
        prefix: "/assets", directory: configuration.assetsDirectory, fileIO: dependencies.fileIO,
        files: FileMiddleware(
            configuration.assetsDirectory, urlBasePath: "/assets",
            cacheControl: .init([(MediaType(type: .any), [.noCache])]), logger: dependencies.logger
        )
    ))

    SystemController(
        database: dependencies.database, catalog: dependencies.catalog,
        metrics: GroupieMetrics.registry, openAPIDocument: try OpenAPIDocument.load(),
        instance: dependencies.blobs.temporary.instance
    ).addRoutes(to: router)
    let clock = configuration.clock
    let links = JoinLinks(baseURL: configuration.resolvedPublicBaseURL)
    let signer = ImageURLSigner(key: dependencies.signingKey)
    let committed = dependencies.committed
    let limiterByAddress = AttemptLimiter(
        store: dependencies.database, scope: "join-address", limit: configuration.failedJoinsPerAddress, window: configuration.failedJoinWindow,
        logger: dependencies.logger
    )
    let clientAddress = ClientAddress(trustForwardedFor: configuration.trustForwardedFor)
    let creationsByAddress = AttemptLimiter(
        store: dependencies.database, scope: "create-address", limit: configuration.creationsPerAddress, window: configuration.creationWindow,
        logger: dependencies.logger
    )
    JoinPageController(
        database: dependencies.database, catalog: dependencies.catalog, clock: clock,
        fileIO: dependencies.fileIO, pagePath: configuration.assetsDirectory + "/web/index.html", limiterByAddress: limiterByAddress, clientAddress: clientAddress,
        templates: templates
    ).addRoutes(to: router)

    let streamTokens = StreamTokens(signer: signer, clock: clock)
    let downloads = StreamedDownloads(limit: configuration.streamedDownloads)
    let api = router.group("api/v1")
    VenueController(catalog: dependencies.catalog).addRoutes(to: api)
    let partials = try PartialUploads(
        directory: configuration.dataFolder.uploads,
        limits: .init(
            perGroup: configuration.partialUploadBytesPerGroup, perAddress: configuration.partialUploadBytesPerAddress, total: configuration.partialUploadBytes,
            lifetime: configuration.partialUploadLifetime
        ),
        fileIO: dependencies.uploadIO, clock: clock
    )
    let membership = MembershipService(
        database: dependencies.database, committed: committed, catalog: dependencies.catalog, files: dependencies.files,
        partials: partials, clock: clock
    )
    let limits = JoinLimits(
        byPlayer: AttemptLimiter(
            store: dependencies.database, scope: "join-player", limit: configuration.failedJoinsPerPlayer, window: configuration.failedJoinWindow,
            logger: dependencies.logger
        ),
        byAddress: limiterByAddress, creationsByAddress: creationsByAddress, clientAddress: clientAddress
    )
    PlayerController(database: dependencies.database, links: links, membership: membership, limits: limits).addRoutes(to: api)
    GroupController(
        membership: membership,
        documents: GroupDocuments(database: dependencies.database, catalog: dependencies.catalog, links: links, signer: signer, clock: clock),
        limits: limits
    ).addRoutes(to: api)
    let toggles = ToggleAllowance(counter: AttemptLimiter(
        store: dependencies.database, scope: "toggle-player", limit: ToggleAllowance.perMinute, window: .seconds(60), logger: dependencies.logger
    ))
    let photos = PhotoService(
        database: dependencies.database, catalog: dependencies.catalog,
        ingest: PhotoIngest(
            blobs: dependencies.blobs, processor: dependencies.processor, work: dependencies.imageWork, fileIO: dependencies.fileIO,
            maxUploadBytes: configuration.maxUploadBytes
        ),
        files: dependencies.files, committed: committed, collages: dependencies.collages, toggles: toggles, clock: clock
    )
    PhotoController(photos: photos, signer: signer, downloads: downloads, partials: partials, clientAddress: clientAddress).addRoutes(to: api)
    GroupFeedController(feed: GroupFeedService(database: dependencies.database, committed: committed, toggles: toggles, clock: clock), signer: signer).addRoutes(to: api)
    AnswerController(
        answers: AnswerService(
            database: dependencies.database, catalog: dependencies.catalog, committed: committed,
            guesses: GuessLimits(store: dependencies.database, logger: dependencies.logger), clock: clock
        )
    ).addRoutes(to: api)
    CollageController(
        database: dependencies.database, signer: signer, collages: dependencies.collages, fileIO: dependencies.fileIO, clock: clock
    ).addRoutes(to: api)
    AlbumController(
        database: dependencies.database, catalog: dependencies.catalog, collages: dependencies.collages, files: dependencies.files,
        downloads: downloads, fileIO: dependencies.fileIO, streamTokens: streamTokens
    ).addRoutes(to: api)
    RecapController(
        database: dependencies.database, catalog: dependencies.catalog, collages: dependencies.collages, fileIO: dependencies.fileIO,
        streamTokens: streamTokens, assetsDirectory: configuration.assetsDirectory,
        cache: RecapCache(work: dependencies.imageWork, clock: clock)
    ).addRoutes(to: api)
    EventController(
        database: dependencies.database, hub: dependencies.hub, signer: signer, streamTokens: streamTokens,
        streams: StreamAllowance(limits: .init(
            perPlayer: configuration.streamsPerPlayer, perGroup: configuration.streamsPerGroup,
            total: max(1, Int(Double(maxConnections) * configuration.streamShare))
        )),
        clock: clock
    ).addRoutes(to: api)
    let moderation = ModerationService(
        database: dependencies.database, committed: committed, catalog: dependencies.catalog, files: dependencies.files,
        collages: dependencies.collages, clock: clock
    )
    let staff = router.group("staff").add(
        middleware: StaffAuthenticator(database: dependencies.database, clock: clock, errorPages: StaffErrorPages(pages: pages))
    )
    let signedIn = staff.signedIn()
    StaffSignInController(
        database: dependencies.database, logins: StaffLoginLimits(store: dependencies.database, logger: dependencies.logger),
        passwords: dependencies.passwords, clientAddress: clientAddress, plainHTTP: PlainHTTP(servesTLS: configuration.servesTLS),
        pages: pages, clock: clock
    ).addRoutes(to: staff, signedIn: signedIn)
    StaffController(moderation: moderation, pages: pages).addRoutes(to: signedIn)
    StaffMessageController(
        moderation: moderation, pages: pages, limits: StaffMessageLimits(store: dependencies.database, logger: dependencies.logger)
    ).addRoutes(to: signedIn)
    StaffWallController(moderation: moderation, pages: pages, fileIO: dependencies.fileIO).addRoutes(to: signedIn)
    StaffDownloadController(moderation: moderation, downloads: downloads, fileIO: dependencies.fileIO).addRoutes(to: signedIn)
    StaffAccountsController(
        accounts: StaffAccounts(database: dependencies.database, clock: clock), catalog: dependencies.catalog,
        passwords: dependencies.passwords, pages: pages, clock: clock
    ).addRoutes(to: signedIn)
    StaffNumbersController(database: dependencies.database, catalog: dependencies.catalog, pages: pages, clock: clock).addRoutes(to: signedIn)
    StaffPosterController(
        database: dependencies.database, catalog: dependencies.catalog, links: links, assetsDirectory: configuration.assetsDirectory,
        fileIO: dependencies.fileIO, committed: committed, clock: clock
    ).addRoutes(to: signedIn)
    StaffLiveController(database: dependencies.database, catalog: dependencies.catalog, hub: dependencies.hub).addRoutes(to: signedIn)
    StaffMissionsController(
        catalog: dependencies.catalog, reloader: dependencies.reloader, work: dependencies.collages.work,
        assetsDirectory: configuration.assetsDirectory, pages: pages
    ).addRoutes(to: signedIn)
    let editor = StaffEditorController(
        catalog: dependencies.catalog,
        editing: MissionEditing(
            reloader: dependencies.reloader, history: MissionHistory(directory: configuration.dataFolder.missionHistory), database: dependencies.database,
            committed: committed, fileIO: dependencies.fileIO, clock: clock, logger: dependencies.logger
        ),
        drafts: DraftVenues(), work: dependencies.collages.work, assetsDirectory: configuration.assetsDirectory, pages: pages
    )
    editor.addRoutes(to: signedIn)
    StaffPicturesController(editor: editor, assetsDirectory: configuration.assetsDirectory).addRoutes(to: signedIn)
    StaffNewVenueController(editor: editor, assetsDirectory: configuration.assetsDirectory).addRoutes(to: signedIn)
    routes.set(router.routes.map { ($0.method, $0.path.description) })
    return router
}

/// The routes of the server, for the test that keeps the OpenAPI document honest.
public enum GroupieRoutes {
    public static func describe(_ configuration: ServerConfiguration) async throws -> [(method: HTTPRequest.Method, path: String)] {
        let dependencies = try await ServerDependencies.open(configuration, logger: Logger(label: "groupie-routes"))
        let routes = Result { try buildRouter(dependencies, configuration: configuration, maxConnections: configuration.maxConnections).routes.map { ($0.method, $0.path.description) } }
        try await dependencies.fileIO.shutdown()
        try await dependencies.uploadIO.shutdown()
        try await dependencies.passwords.shutdown()
        return try routes.get()
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
