import Tracing
import ServiceLifecycle

/// Work that follows a request after its answer (finding a photo's subject, redrawing
/// collages). It runs under the application's service group instead of in tasks no one owns,
/// so that a shutdown waits for it: what was queued before the signal is done, what comes
/// after is dropped (the next start redraws collages as they are asked for).
final class BackgroundWork: Service, Sendable {
    typealias Job = @Sendable () async -> Void
    private let jobs: AsyncStream<Job>
    private let queue: AsyncStream<Job>.Continuation

    init() {
        (jobs, queue) = AsyncStream.makeStream(of: Job.self)
    }

    /// Runs `job` later, in the trace of the request that asked for it.
    func enqueue(_ job: @escaping Job) {
        let context = ServiceContext.current ?? .topLevel
        queue.yield { await ServiceContext.withValue(context) { await job() } }
    }

    func run() async {
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                for await job in jobs { group.addTask { await job() } }
            }
        } onGracefulShutdown: {
            self.queue.finish()
        }
    }
}
