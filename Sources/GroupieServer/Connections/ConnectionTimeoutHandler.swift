import NIOCore
import NIOHTTPTypes

/// How long a connection may take at each stage before it is closed.
public struct ConnectionTimeouts: Sendable, Equatable {
    /// From the first byte of a request (or a new connection) to the end of its headers.
    public var header: Duration
    /// The longest pause while a request body arrives; a slow but moving upload goes on.
    public var body: Duration
    /// How long a kept-alive connection may wait for its next request.
    public var idle: Duration
    /// Bytes a second a body must arrive at on average, once the client has taken `body` to
    /// send it: a byte now and then, each pause under `body`, would hold a connection for days.
    /// 512 bytes a second is far below a phone's worst signal.
    public var minimumBodyRate: Int

    public init(header: Duration = .seconds(10), body: Duration = .seconds(30), idle: Duration = .seconds(60), minimumBodyRate: Int = 512) {
        self.header = header
        self.body = body
        self.idle = idle
        self.minimumBodyRate = minimumBodyRate
    }
}

/// Closes connections that send their headers too slowly, pause too long inside a body, or
/// sit idle between requests, so that half-sent requests cannot hold the server's connections.
/// While a response is being written (an event stream for hours, say) no timer runs: streams
/// keep their heartbeats and stay open.
///
/// It sits after the HTTP decoder. Raw bytes that do not yet make a request head still arrive
/// as `channelReadComplete`, which starts the header timer. The body timer measures the client
/// only: it runs from the server's request for more bytes (`read`) to their arrival.
final class ConnectionTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    enum Stage: Equatable {
        /// Between requests: waiting for the first byte of the next one.
        case idle
        case readingHead
        case readingBody
        /// The request is read; its response is being written.
        case responding
    }

    private let timeouts: ConnectionTimeouts
    private(set) var stage = Stage.idle
    private var responsesOwed = 0
    /// When the connection is closed unless its stage moves on first; nil while no limit runs.
    private var deadline: NIODeadline?
    /// The scheduled check of the deadline, and when it runs. A connection that answers request
    /// after request sets and clears a deadline several times a request; scheduling and
    /// cancelling a task each time cost about 3 % of a short request. So a later deadline leaves
    /// the check where it is (it moves itself on when it finds the deadline still ahead), and only
    /// an earlier one moves it: a connection is never closed later than its deadline.
    private var check: (task: Scheduled<Void>, at: NIODeadline)?
    /// Runs while the client does not read what the server writes (the socket is full): a
    /// reader that stalls for the body timeout loses its connection, an event stream included
    /// (it reconnects with its last event id).
    private var writeStall: Scheduled<Void>?
    /// The client's time on the body in the current window (from each request for more bytes
    /// to their arrival; what the server holds back is not counted), the bytes it brought in
    /// it, and when the server last asked for more while it still waits.
    private var bodyTime = TimeAmount.zero
    private var bodyBytes = 0
    private var bodyAsked: NIODeadline?

    init(timeouts: ConnectionTimeouts) {
        self.timeouts = timeouts
    }

    /// The receive buffer of a connection starts at 256 bytes, and grows (to NIO's usual 64 KiB
    /// at most) for connections that send more, such as uploads. SwiftNIO keeps a connection's
    /// receive buffer for the connection's life, 2 KiB by default: with 10,000 open event
    /// streams, whose only request is a few hundred bytes, that was 1.7 KiB more per stream.
    static let receiveBuffer = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 256, maximum: 65536)

    func handlerAdded(context: ChannelHandlerContext) {
        // Every connection passes here first, before anything is read: the handler that sees
        // each connection arrive sets its receive buffer too.
        try? context.channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: Self.receiveBuffer)
        // A new connection has the header timeout to send its first request.
        if context.channel.isActive { startTimer(timeouts.header, context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        startTimer(timeouts.header, context: context)
        context.fireChannelActive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            writeStall?.cancel()
            writeStall = nil
        } else if writeStall == nil {
            writeStall = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(timeouts.body)) { [self] in
                writeStall = nil
                context.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelCheck()
        writeStall?.cancel()
        writeStall = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelCheck()
        writeStall?.cancel()
        writeStall = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            responsesOwed += 1
            stage = .readingBody
            (bodyTime, bodyBytes, bodyAsked) = (.zero, 0, nil)
            // The body timer runs only while the server asks for more (see `read`).
            stopTimer()
        case .body(let part):
            if stage == .readingBody {
                stopTimer()
                if isTooSlow(adding: part.readableBytes) {
                    context.close(promise: nil)
                    return
                }
            }
        case .end:
            if responsesOwed > 0 {
                stage = .responding
                stopTimer()
            } else {
                // Answered before its body was read (a 413, say): waiting for the next request.
                stage = .idle
                startTimer(timeouts.idle, context: context)
            }
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if stage == .idle {
            // Bytes arrived that do not make a head yet: the next request has begun.
            stage = .readingHead
            startTimer(timeouts.header, context: context)
        }
        context.fireChannelReadComplete()
    }

    /// The server asks for more of the request: from now on a silent client is the client's
    /// fault. While the server holds back (a busy disk, backpressure), no body timer runs.
    func read(context: ChannelHandlerContext) {
        if stage == .readingBody {
            if deadline == nil { startTimer(timeouts.body, context: context) }
            if bodyAsked == nil { bodyAsked = .now() }
        }
        context.read()
    }

    /// Counts a part of the body: whether the client, over a window of the body timeout of its
    /// own time on the body, has sent it slower than `minimumBodyRate`. Windows, not the whole
    /// body's average: a body sent fast then a byte now and then would keep its average for hours.
    private func isTooSlow(adding bytes: Int) -> Bool {
        if let asked = bodyAsked {
            bodyTime = bodyTime + (.now() - asked)
            bodyAsked = nil
        }
        bodyBytes += bytes
        guard bodyTime > TimeAmount(timeouts.body) else { return false }
        let tooSlow = Double(bodyBytes) < Double(timeouts.minimumBodyRate) * Double(bodyTime.nanoseconds) / 1e9
        (bodyTime, bodyBytes) = (.zero, 0)
        return tooSlow
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            responsesOwed = max(0, responsesOwed - 1)
            if responsesOwed == 0, stage == .responding {
                stage = .idle
                startTimer(timeouts.idle, context: context)
            }
        }
        context.write(data, promise: promise)
    }

    private func startTimer(_ duration: Duration, context: ChannelHandlerContext) {
        let deadline = NIODeadline.now() + TimeAmount(duration)
        self.deadline = deadline
        if let check, check.at <= deadline { return }
        check?.task.cancel()
        scheduleCheck(at: deadline, context: context)
    }

    private func scheduleCheck(at time: NIODeadline, context: ChannelHandlerContext) {
        let task = context.eventLoop.assumeIsolated().scheduleTask(deadline: time) { [self] in
            check = nil
            guard let deadline else { return }
            if deadline <= .now() {
                self.deadline = nil
                context.close(promise: nil)
            } else {
                scheduleCheck(at: deadline, context: context)
            }
        }
        check = (task, time)
    }

    private func stopTimer() {
        deadline = nil
    }

    private func cancelCheck() {
        deadline = nil
        check?.task.cancel()
        check = nil
    }
}
