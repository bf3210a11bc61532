#if CommandLine
package import NIOCore

/// One end of a CONNECT tunnel: whatever its channel reads is written to the partner's channel, and
/// when either channel closes, so does the other. Reading stops while the partner cannot keep up
/// (its channel is not writable), so a tunnel holds a bounded amount of data.
///
/// Both ends must live on the same event loop: they call each other directly. Used by the address
/// guard and by the test server's proxy (hence `package`).
package final class TunnelHandler: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = NIOAny
    package typealias OutboundIn = NIOAny
    package typealias OutboundOut = NIOAny

    private var partner: TunnelHandler?
    private var context: ChannelHandlerContext?
    private var readPending = false

    private init() {}

    /// Two ends joined to each other: one for the client's channel, one for the origin's.
    package static func pair() -> (TunnelHandler, TunnelHandler) {
        let first = TunnelHandler()
        let second = TunnelHandler()
        first.partner = second
        second.partner = first
        return (first, second)
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    // MARK: from this end's channel

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner?.partnerWrite(data)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        partner?.partnerClose()
        partner = nil
        context.fireChannelInactive()
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        partner?.partnerClose()
        context.close(promise: nil)
    }

    package func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { partner?.partnerBecameWritable() }
        context.fireChannelWritabilityChanged()
    }

    package func read(context: ChannelHandlerContext) {
        if partner?.partnerIsWritable ?? true {
            context.read()
        } else {
            readPending = true
        }
    }

    // MARK: called by the partner

    /// Flushes at once rather than on the next read-complete: the bytes an HTTP decoder hands over
    /// when it is removed come without one.
    private func partnerWrite(_ data: NIOAny) {
        context?.writeAndFlush(data, promise: nil)
    }

    private func partnerClose() {
        context?.close(promise: nil)
    }

    private var partnerIsWritable: Bool {
        context?.channel.isWritable ?? false
    }

    private func partnerBecameWritable() {
        if readPending, let context {
            readPending = false
            context.read()
        }
    }
}
#endif
