/// A span processor that acts when spans start (or are adopted) and never reads ended spans: conform to it
/// instead of ``OTLPSpanProcessor`` when yours does not implement ``OTLPSpanProcessor/onEnd(_:)``.
///
/// With only such processors installed, an ended span's attributes are still converted on the pipeline's
/// worker, not on the thread that ends the span (a processor that may read ended spans gets them converted
/// first, on that thread). Their `onEnd(_:)` is not called.
public protocol OTLPStartOnlySpanProcessor: OTLPSpanProcessor {}
