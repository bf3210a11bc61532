/// What a request sent without a task came to (``TaskStartingTransport/send(_:cancelledBy:then:)``).
package struct SentRequest: Sendable {
    /// The response, when there is one.
    package var response: TransportResponse?
    /// The outcome as ``ImageTransport/send(_:)`` gives it: the response, or the error it throws,
    /// worded as the transport words it (which may take another look at the server).
    package var outcome: @Sendable () async throws -> TransportResponse

    package init(response: TransportResponse?, outcome: @escaping @Sendable () async throws -> TransportResponse) {
        self.response = response
        self.outcome = outcome
    }
}
