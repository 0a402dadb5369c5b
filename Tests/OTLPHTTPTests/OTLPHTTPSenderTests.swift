import Foundation
import OTLPHTTP
import OTLPTelemetry
import OTLPTestSupport
import OTLPWire
import Testing

/// The sender on its own: requests over connections the collector keeps or closes.
@Suite("OTLPHTTPSender", .serialized)
struct OTLPHTTPSenderTests {
    /// Regression: a connection the collector closed right after a complete answer could be handed back to
    /// AsyncHTTPClient's pool after the pool had already removed it (the end of the request was confirmed on
    /// another event loop than the connection's), and the pool stopped the process ("A connection that we
    /// don't know was released?"). It happened in CI behind the flapping proxy; with this server it took
    /// well under 2,400 requests.
    @Test("a collector that closes kept-alive connections right after answers: every request answered at once, nothing traps")
    func closedAfterAnswer() throws {
        let threadCount = 8
        let requestsPerThread = 400
        let server = try OTLPAbruptCloseServer(closeEvery: 3)
        defer { server.stop() }
        // A first backoff longer than the timeout: a request that waited for one would fail.
        let sender = OTLPHTTPSender(
            signal: .traces, endpoint: OTLPHTTPTestData.endpoint(server.endpoint, compression: .none, timeoutSeconds: 30),
            retryPolicy: OTLPHTTPRetryPolicy(initialBackoffSeconds: 60, maxBackoffSeconds: 60, jitterFraction: 0))
        let body = OTLPEncoder().encode(
            OTLPTracesData(resource: OTLPHTTPTestData.resource, scope: OTLPHTTPTestData.scope, spans: OTLPHTTPTestData.spans(20).map(\.span)))
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: threadCount) { _ in
            for _ in 0..<requestsPerThread { results.add(sender.send(body)) }
        }
        sender.shutdown()
        let all = results.all
        #expect(all.count == threadCount * requestsPerThread)
        // A request that found its connection closed is sent again at once, on another connection: every
        // one accepted without a backoff, with at most one more attempt per connection the sender keeps.
        let notAccepted = all.filter { $0.outcome != .accepted(rejectedItems: 0, message: "") }
        #expect(notAccepted.isEmpty, "\(notAccepted.count) not accepted, as \(notAccepted.prefix(3))")
        #expect(all.allSatisfy { $0.attempts <= 1 + threadCount })
        #expect(server.answered == threadCount * requestsPerThread)
        #expect(server.closedAfterAnswer == threadCount * requestsPerThread / 3)
    }
}

/// Results several threads add to.
private final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [OTLPHTTPSender.Result] = []

    var all: [OTLPHTTPSender.Result] { lock.withLock { results } }

    func add(_ result: OTLPHTTPSender.Result) { lock.withLock { results.append(result) } }
}
