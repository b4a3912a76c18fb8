import Foundation
import Logging
import OTel
import ServiceLifecycle
import Tracing

/// Traces over OpenTelemetry's protocol, off unless `--otlp-endpoint` names a collector (an
/// OpenTelemetry Collector, Jaeger, Tempo…): an upload's request, its ingest, its commit, the
/// events it publishes and the collage drawn after it are spans of one trace. Spans go out in
/// batches over OTLP/HTTP, as protobuf unless `OTEL_EXPORTER_OTLP_PROTOCOL=http/json` says
/// otherwise; swift-otel's other `OTEL_*` variables (`OTEL_BSP_SCHEDULE_DELAY`, sampling…) apply.
public enum GroupieTracing {
    /// Makes spans reach the collector from now on, and returns the service that sends them
    /// (run it with the server's); nil when tracing is off. Once per process: the tracer is the
    /// process's.
    public static func bootstrap(_ configuration: ServerConfiguration) throws -> (any Service)? {
        guard let endpoint = configuration.otlpEndpoint else { return nil }
        var otel = OTel.Configuration.default
        otel.serviceName = "groupie"
        otel.logs.enabled = false
        otel.metrics.enabled = false
        otel.traces.otlpExporter.endpoint = tracesURL(endpoint)
        otel.traces.otlpExporter.protocol = .httpProtobuf
        let (tracer, service) = try OTel.makeTracingBackend(configuration: otel)
        InstrumentationSystem.bootstrap(tracer)
        return service
    }

    /// The collector's traces URL: `/v1/traces` added to an endpoint given without a path.
    public static func tracesURL(_ endpoint: String) -> String {
        guard let url = URLComponents(string: endpoint), url.path.isEmpty || url.path == "/" else { return endpoint }
        return endpoint.hasSuffix("/") ? endpoint + "v1/traces" : endpoint + "/v1/traces"
    }
}
