import Logging

/// swift-log's `StreamLogHandler` on standard error, with its metadata written out only when a
/// line is logged. `StreamLogHandler` formats all its metadata again whenever a value is set,
/// and Hummingbird sets the request id on every request's logger: that formatting cost about
/// 3 % of the CPU of a group read in `make bench`, though most requests log nothing.
struct DeferredMetadataLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider

    init(label: String, logLevel: Logger.Level) {
        self.label = label
        self.logLevel = logLevel
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var handler = StreamLogHandler.standardError(label: label, metadataProvider: metadataProvider)
        handler.logLevel = logLevel
        handler.metadata = metadata
        handler.log(event: event)
    }
}
