import GroupieContent
import Metrics
import Prometheus

/// swift-metrics can be bootstrapped once per process; every application of the process
/// (tests build many) shares this registry.
enum GroupieMetrics {
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()
}

/// Each metric touches the registry first, so that none is made before the bootstrap.
enum VenueMetrics {
    static let venuesServed: Metrics.Gauge = { _ = GroupieMetrics.registry; return Metrics.Gauge(label: "groupie_venues_served") }()
    static let missionsServed: Metrics.Gauge = { _ = GroupieMetrics.registry; return Metrics.Gauge(label: "groupie_missions_served") }()
    static let reloads: Metrics.Counter = { _ = GroupieMetrics.registry; return Metrics.Counter(label: "groupie_mission_file_reloads_total") }()

    static func update(catalog: VenueCatalog) {
        let all = catalog.all
        venuesServed.record(all.count)
        missionsServed.record(all.reduce(0) { $0 + $1.venue.missions.count })
    }
}

enum EventStreamMetrics {
    static let open: Metrics.Meter = { _ = GroupieMetrics.registry; return Metrics.Meter(label: "groupie_event_streams_open") }()
}

enum CollageMetrics {
    static let renders: Metrics.Counter = { _ = GroupieMetrics.registry; return Metrics.Counter(label: "groupie_collages_rendered_total") }()
    static let renderTime: Metrics.Timer = { _ = GroupieMetrics.registry; return Metrics.Timer(label: "groupie_collage_render_seconds") }()
}
