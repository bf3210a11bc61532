#if CommandLine
import NIOCore
import NIOHTTP1

/// Sits on the proxy's connection to an origin server and hands each response part, and the end of
/// the connection, to the `ProxyHandler` that is forwarding the request. Same event loop as that
/// handler, so the closures are called directly.
final class OriginResponseRelay: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let onPart: (HTTPClientResponsePart) -> Void
    private let onClose: () -> Void

    init(onPart: @escaping (HTTPClientResponsePart) -> Void, onClose: @escaping () -> Void) {
        self.onPart = onPart
        self.onClose = onClose
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        onPart(unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        onClose()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset, or a body cut short (the decoder's EOF error): what the client sees is decided
        // in `onClose`, from how far the response got.
        context.close(promise: nil)
    }
}
#endif
