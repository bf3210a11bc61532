import Foundation
import ImgCacheTestServer
import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup

/// The rules of one exchange, step by step, with no server and no clock: what every transport's
/// requests go through (redirects, retries, budget waits, 304s, the format check).
@Suite("One exchange's rules")
struct ExchangeStateMachineTests {
    let start = ContinuousClock.now
    var deadline: ContinuousClock.Instant { start + .seconds(10) }

    func machine(_ url: String = "https://a.test/img.png", retries: Int = 2, maxRedirects: Int = 3, allowedHosts: Set<String>? = nil,
                 budget: ByteBudget? = nil, acceptsNotModified: Bool = false, formats: Set<ImageFormat>? = [.png, .gif]) -> ExchangeStateMachine {
        let policy = HTTPExchange.Policy(timeout: .seconds(10), retries: retries, retryDelay: .milliseconds(100), maxRedirects: maxRedirects,
                                         maxBytes: 1_000, privateNetworks: .allowed, acceptedFormats: formats, allowedHosts: allowedHosts,
                                         budget: budget)
        return ExchangeStateMachine(url: BrowserURL(url)!, policy: policy, acceptsNotModified: acceptsNotModified, deadline: deadline)
    }

    func response(_ status: Int, location: String? = nil, body: [UInt8] = [], contentType: String? = nil) -> TransportResponse {
        var headers: [(name: String, value: String)] = []
        if let location { headers.append(("Location", location)) }
        if let contentType { headers.append(("Content-Type", contentType)) }
        return TransportResponse(status: status, headers: headers, body: body)
    }

    @Test("redirects are followed to the URL they name, resolved against the current one, each marked as a redirect, up to the limit")
    func redirects() {
        var exchange = machine(maxRedirects: 2)
        guard case .send(redirected: false) = exchange.start() else { Issue.record("the first step sends"); return }
        guard case .send(redirected: true) = exchange.received(response(302, location: "/b/next.png"), now: start) else {
            Issue.record("a redirect is followed"); return
        }
        #expect(exchange.url.serialized == "https://a.test/b/next.png")
        guard case .send(redirected: true) = exchange.received(response(301, location: "other.png"), now: start) else {
            Issue.record("a second redirect is followed"); return
        }
        #expect(exchange.url.serialized == "https://a.test/b/other.png")
        guard case .fail(let failure) = exchange.received(response(307, location: "/again.png"), now: start) else {
            Issue.record("a third passes the limit"); return
        }
        #expect(failure == .tooManyRedirects(limit: 2))
    }

    @Test("a redirect without a Location, to something not a URL, out of http(s) or off the allow-list ends the exchange, naming why")
    func refusedRedirects() {
        let cases: [(TransportResponse, DownloadFailure.Kind)] = [
            (response(302), .redirectWithoutLocation(status: 302)),
            (response(303, location: "http://[bad"), .redirectToInvalidURL(status: 303, location: "http://[bad")),
            (response(301, location: "file:///etc/passwd"), .redirectNotHTTP(status: 301, location: "file:///etc/passwd")),
            (response(308, location: "https://elsewhere.test/x.png"), .redirectToHostNotAllowed(status: 308, host: "elsewhere.test")),
        ]
        for (answer, expected) in cases {
            var exchange = machine(allowedHosts: ["a.test"])
            guard case .fail(let failure) = exchange.received(answer, now: start) else {
                Issue.record("\(answer.status) is not followed"); continue
            }
            #expect(failure == expected)
            #expect(exchange.url.serialized == "https://a.test/img.png", "the failure is at the URL that redirected")
        }
    }

    @Test("a 5xx is retried with doubling delays, then fails naming the attempts; a 4xx is not retried")
    func serverErrors() {
        var exchange = machine(retries: 2)
        guard case .retry(let first) = exchange.received(response(503), now: start) else { Issue.record("a 503 is retried"); return }
        #expect(first == .milliseconds(100))
        guard case .send(redirected: false) = exchange.retryDue(now: start + first) else { Issue.record("the retry sends"); return }
        guard case .retry(let second) = exchange.received(response(500), now: start, jitter: 1.25) else { Issue.record("again"); return }
        #expect(second == .milliseconds(250), "twice the delay, times the jitter")
        _ = exchange.retryDue(now: start + second)
        guard case .fail(let failure) = exchange.received(response(502), now: start) else { Issue.record("no attempts left"); return }
        #expect(failure == .retriesExhausted(last: .httpStatus(502), attempts: 3))

        var notFound = machine()
        guard case .fail(let gone) = notFound.received(response(404), now: start) else { Issue.record("a 404 ends it"); return }
        #expect(gone == .httpStatus(404))
    }

    @Test("a retry that would end after the deadline is not made; one woken after it fails with the failure before it")
    func retriesAndTheDeadline() {
        var late = machine()
        guard case .fail(let failure) = late.received(response(503), now: deadline - .milliseconds(50)) else {
            Issue.record("no time to retry"); return
        }
        #expect(failure == .noTimeToRetry(last: .httpStatus(503)))

        var woken = machine()
        _ = woken.failed(.connection("reset"), now: start)
        guard case .fail(let reason) = woken.retryDue(now: deadline + .seconds(1)) else { Issue.record("woken too late"); return }
        #expect(reason == .noTimeToRetry(last: .transport(.connection("reset"))))

        var heardLate = machine()
        guard case .fail(let heard) = heardLate.failed(.connection("reset"), now: deadline + .seconds(1)) else {
            Issue.record("heard after the deadline"); return
        }
        #expect(heard == .transport(.connection("reset")), "what the transport said is the reason")
    }

    @Test("a time-out ends the exchange with the whole timeout; a refused certificate or a body too large is not retried")
    func finalTransportErrors() {
        var timedOut = machine()
        guard case .fail(let failure) = timedOut.failed(.timedOut(phase: .connecting), now: start) else { Issue.record("ends"); return }
        #expect(failure == .timedOut(after: .seconds(10), phase: .connecting))
        for error in [TransportError.tooLarge(limit: 1_000), .deniedAddress(host: "a.test", address: "127.0.0.1", kind: "a loopback address")] {
            var exchange = machine()
            guard case .fail(let reason) = exchange.failed(error, now: start) else { Issue.record("\(error) is final"); continue }
            #expect(reason == .transport(error))
        }
    }

    @Test("a body held back for the byte budget is asked for again once there is room, without using up a retry")
    func budgetWaits() {
        var exchange = machine(retries: 0, budget: ByteBudget(limit: 100))
        guard case .waitForBudget = exchange.failed(.overBudget(limit: 100), now: start) else { Issue.record("waits for room"); return }
        guard case .send(redirected: false) = exchange.budgetWaitEnded(withRoom: true) else { Issue.record("sends again"); return }
        guard case .waitForBudget = exchange.failed(.overBudget(limit: 100), now: start) else { Issue.record("waits again"); return }
        guard case .fail(let failure) = exchange.budgetWaitEnded(withRoom: false) else { Issue.record("no room before the deadline"); return }
        #expect(failure == .transport(.overBudget(limit: 100)))

        var withoutBudget = machine()
        guard case .fail(let unbudgeted) = withoutBudget.failed(.overBudget(limit: 100), now: start) else {
            Issue.record("without a budget there is nothing to wait for"); return
        }
        #expect(unbudgeted == .transport(.overBudget(limit: 100)))
    }

    @Test("a 2xx ends the exchange when its bytes are an accepted image, with their format; a 304 only when a copy is revalidated")
    func endings() {
        var image = machine()
        guard case .succeed(let success) = image.received(response(200, body: TestImages.png()), now: start) else {
            Issue.record("a PNG is kept"); return
        }
        #expect(success.format == .png)
        var page = machine()
        guard case .fail(let failure) = page.received(response(200, body: Array("<html>".utf8), contentType: "text/html"), now: start) else {
            Issue.record("a page is not an image"); return
        }
        #expect(failure == .notAnImage(contentType: "text/html", byteCount: 6))
        var anyBody = machine(formats: nil)
        guard case .succeed(let any) = anyBody.received(response(200, body: Array("<html>".utf8)), now: start) else {
            Issue.record("a page's exchange takes any body"); return
        }
        #expect(any.format == nil)

        var revalidating = machine(acceptsNotModified: true)
        guard case .succeed(let notModified) = revalidating.received(response(304), now: start) else { Issue.record("304 kept"); return }
        #expect(notModified.response.status == 304)
        var fresh = machine()
        guard case .fail(let unasked) = fresh.received(response(304), now: start) else { Issue.record("304 unasked"); return }
        #expect(unasked == .httpStatus(304))
    }
}
