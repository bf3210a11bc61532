import NIOCore

/// One end of a CONNECT tunnel: whatever its channel reads is written to the partner's channel, and
/// when either channel closes, so does the other. Reading stops while the partner cannot keep up
/// (its channel is not writable), so a tunnel holds a bounded amount of data.
///
/// Both ends must live on the same event loop: they call each other directly.
final class TunnelHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny
    typealias OutboundOut = NIOAny

    private var partner: TunnelHandler?
    private var context: ChannelHandlerContext?
    private var readPending = false

    private init() {}

    /// Two ends joined to each other: one for the client's channel, one for the origin's.
    static func pair() -> (TunnelHandler, TunnelHandler) {
        let first = TunnelHandler()
        let second = TunnelHandler()
        first.partner = second
        second.partner = first
        return (first, second)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    // MARK: from this end's channel

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner?.partnerWrite(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner?.partnerClose()
        partner = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        partner?.partnerClose()
        context.close(promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { partner?.partnerBecameWritable() }
        context.fireChannelWritabilityChanged()
    }

    func read(context: ChannelHandlerContext) {
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
