/// Where an exchange stood when its deadline passed: what stalled.
public enum TimeoutPhase: Sendable, Hashable, Codable, CustomStringConvertible {
    /// No connection yet: the name lookup, the TCP or TLS handshake, or the proxy.
    case connecting
    /// Connected and the request sent; no response head yet.
    case waitingForResponse
    /// No response head yet, and the transport cannot tell connecting from waiting
    /// (`URLSession` does not say when its connection is up).
    case beforeResponse
    /// The head arrived; `received` bytes of the body had come (of `expected`, when the
    /// response declared its length).
    case receivingBody(received: Int, expected: Int?)

    /// How it ends the line "timed out after 20 s …".
    public var description: String {
        switch self {
        case .connecting: "while connecting"
        case .waitingForResponse: "waiting for the response"
        case .beforeResponse: "before any response"
        case .receivingBody(let received, let expected?): "receiving the body (\(received) of \(expected) bytes)"
        case .receivingBody(let received, nil): "receiving the body (\(received) bytes)"
        }
    }
}
