#if CommandLine
import AsyncHTTPClient
import ImgCache
import NIOCore
import NIOHTTP1

/// Collects one response for ``AsyncHTTPClientTransport``: the head, and the body up to a byte limit.
///
/// AsyncHTTPClient's delegate interface rather than its `async` one: the whole response arrives as
/// one future completed on the event loop, so a request costs one task resumption, where iterating
/// the `async` body costs one per chunk plus a task to bound the body's time.
///
/// AsyncHTTPClient calls a delegate only on the request's event loop, one call after another, and
/// the transport reads ``progress`` only after the request's future has completed (which orders
/// those calls before the read): that is what makes `@unchecked Sendable` sound.
final class ImageResponseCollector: HTTPClientResponseDelegate, @unchecked Sendable {
    typealias Response = TransportResponse

    private let maxBytes: Int
    private var requestSent = false
    private var head: HTTPResponseHead?
    private var declaredLength: Int?
    private var body: [UInt8] = []
    /// The body's bytes counted against the request's budget, when it has one.
    private let charge: BudgetCharge?

    init(maxBytes: Int, budget: ByteBudget?) {
        self.maxBytes = maxBytes
        charge = budget?.charge()
    }

    /// How much of a declared body had arrived, for a response that ended early; nil otherwise.
    var truncation: (received: Int, declared: Int)? {
        guard let declaredLength, head != nil, body.count < declaredLength else { return nil }
        return (body.count, declaredLength)
    }

    /// What the exchange was waiting for, had it stalled now.
    var phase: TimeoutPhase {
        if head != nil { return .receivingBody(received: body.count, expected: declaredLength) }
        return requestSent ? .waitingForResponse : .connecting
    }

    func didSendRequestHead(task: HTTPClient.Task<TransportResponse>, _ head: HTTPRequestHead) {
        requestSent = true
    }

    func didReceiveHead(task: HTTPClient.Task<TransportResponse>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        self.head = head
        let status = head.status.code
        let mayHaveBody = !(100..<200).contains(status) && status != 204 && status != 304
        declaredLength = mayHaveBody ? head.headers.first(name: "Content-Length").flatMap { Int($0) } : nil
        if let declaredLength, declaredLength > maxBytes {
            // A failed future makes AsyncHTTPClient drop the connection (or reset the stream).
            return task.eventLoop.makeFailedFuture(TransportError.tooLarge(limit: maxBytes))
        }
        body.reserveCapacity(min(declaredLength ?? 64 * 1024, maxBytes))
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<TransportResponse>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let needed = body.count + buffer.readableBytes
        guard needed <= maxBytes else {
            return task.eventLoop.makeFailedFuture(TransportError.tooLarge(limit: maxBytes))
        }
        if needed > body.capacity {
            // Doubling as `append` would, but never past the limit: a body without Content-Length
            // that runs into a 20 MB limit would otherwise have grown from 16 MB to 32 MB
            // (48 MB at once while it copies), for bytes it can never have.
            body.reserveCapacity(min(maxBytes, max(needed, body.capacity * 2)))
        }
        if let charge, !charge.add(buffer.readableBytes) {
            return task.eventLoop.makeFailedFuture(TransportError.overBudget(limit: charge.limit))
        }
        body.append(contentsOf: buffer.readableBytesView)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<TransportResponse>) throws -> TransportResponse {
        guard let head else { throw TransportError.connection("no response") }
        if let (received, declared) = truncation {
            throw TransportError.connection("truncated: \(received) of \(declared) bytes")
        }
        var response = TransportResponse(
            status: Int(head.status.code),
            headers: head.headers.map { (name: $0.name, value: $0.value) },
            body: body,
            httpVersion: head.version.major >= 2 ? .http2 : .http1)
        response.charge = charge
        return response
    }
}
#endif
