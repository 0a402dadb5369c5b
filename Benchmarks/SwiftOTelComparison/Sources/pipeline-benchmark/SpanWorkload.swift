import PeerSupport
import Tracing

/// The spans every SDK gets: `startSpan`, 8 attributes (4 strings, 2 ints, a double, a bool) and `end`, as
/// an instrumented request handler makes them, `options.spans` in all over `options.tasks` tasks.
struct SpanWorkload {
    var options: PipelineOptions

    /// Makes the spans through `tracer` on the tasks; returns the wall seconds until every task is done.
    func emit<T: Tracer>(through tracer: T) async -> Double {
        let start = ProcessCost.nowNanoseconds()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<options.tasks {
                let count = options.spans / options.tasks + (task < options.spans % options.tasks ? 1 : 0)
                group.addTask {
                    for index in 0..<count { Self.span(tracer, index) }
                }
            }
        }
        return Double(ProcessCost.nowNanoseconds() - start) / 1e9
    }

    /// One span.
    static func span<T: Tracer>(_ tracer: T, _ index: Int) {
        let span = tracer.startSpan("HTTP GET /cart", ofKind: .server)
        span.attributes["http.request.method"] = "GET"
        span.attributes["url.path"] = "/cart"
        span.attributes["http.response.status_code"] = 200
        span.attributes["server.address"] = "shop.example.com"
        span.attributes["user.session.id"] = "8f2c1d9e-session"
        span.attributes["app.item.count"] = index & 63
        span.attributes["app.cache.hit"] = index & 1 == 0
        span.attributes["app.ratio"] = 0.25
        span.end()
    }
}
