import Foundation
import GroupieContent
import GroupieStorage
import HTTPTypes
import Hummingbird
import Prometheus

/// Routes for the operator and for client developers: liveness, metrics, the API description.
struct SystemController {
    let database: any GroupieStore
    let catalog: VenueCatalog
    let metrics: PrometheusCollectorRegistry
    let openAPIDocument: ByteBuffer
    /// This running instance's name (its temporary folder's), sent with `/healthz` so that
    /// `groupie doctor` can tell that the public URL leads here.
    let instance: String

    struct Health: Encodable {
        var status: String
        var database: String
        var venues: Int
    }

    func addRoutes(to router: Router<GroupieRequestContext>) {
        router.get("healthz", use: health)
        router.get("readyz", use: ready)
        router.get("metrics", use: prometheus)
        router.get("api/v1/openapi.yaml", use: openAPI)
    }

    func health(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        let state = await database.health(), databaseUp = state == .ok
        let health = Health(status: databaseUp ? "ok" : "failing", database: state.rawValue, venues: catalog.count)
        var response = try context.responseEncoder.encode(health, from: request, context: context)
        response.status = databaseUp ? .ok : .serviceUnavailable
        response.headers[.cacheControl] = "no-store"
        response.headers[.groupieInstance] = instance
        return response
    }

    struct Readiness: Encodable {
        var status: String
        var backend: String
        var database: String
        var venues: Int
    }

    /// Whether this instance should get visitors: its database answers, no request found it
    /// damaged, and it serves venues.
    /// A load balancer sends requests elsewhere while it answers 503.
    func ready(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        let state = await database.health()
        let ready = state == .ok && catalog.count > 0
        let readiness = Readiness(
            status: ready ? "ready" : "not ready", backend: database.backend, database: state.rawValue, venues: catalog.count
        )
        var response = try context.responseEncoder.encode(readiness, from: request, context: context)
        response.status = ready ? .ok : .serviceUnavailable
        response.headers[.cacheControl] = "no-store"
        return response
    }

    func prometheus(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        VenueMetrics.update(catalog: catalog)
        var bytes: [UInt8] = []
        metrics.emit(into: &bytes)
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    func openAPI(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        Response(status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"], body: .init(byteBuffer: openAPIDocument))
    }
}

extension HTTPField.Name {
    static let groupieInstance = Self("Groupie-Instance")!
}
