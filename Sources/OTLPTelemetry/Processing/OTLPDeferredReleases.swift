internal import Tracing

/// Storage an application's thread allocated that the pipeline's worker no longer needs, handed back so that
/// an application's thread frees it: a span's attributes as the Tracing API held them, once converted.
///
/// The dictionary behind a span's `SpanAttributes` (about 1.1 KB with 8 attributes) is too large for glibc's
/// per-thread cache, so the application's thread allocates each one from its arena under the arena's lock. When
/// the worker freed them, a batch at a time, it took that same lock for every one while the application's
/// thread was allocating the next spans' storage: the two threads contended for it, and the futex waits and
/// wake-ups cost the process more than the conversion itself. The worker keeps them here instead, and each
/// span handed to the stage takes up to two of them to free on its own thread (more than one, so that they do not
/// pile up while callers also prepare items themselves). Attributes that
/// hold values of the application's own types (`stringConvertible`) are not kept here: freeing them runs the
/// application's code, which must not run inside an unrelated span's `end()` (it may take a lock held there).
struct OTLPDeferredReleases {
    private var attributes: [SpanAttributes] = []

    var count: Int { attributes.count }
    var isEmpty: Bool { attributes.isEmpty }

    /// Keeps `spent` to be freed later.
    mutating func append(_ spent: consuming SpanAttributes) {
        attributes.append(spent)
    }

    /// Moves what `other` holds into these, up to `limit` held in all; what does not fit stays in `other`.
    mutating func take(from other: inout OTLPDeferredReleases, upTo limit: Int) {
        let moved = min(other.count, max(0, limit - count))
        guard moved > 0 else { return }
        if moved == other.count && attributes.isEmpty && attributes.capacity <= other.attributes.capacity {
            swap(&attributes, &other.attributes)
            return
        }
        attributes.append(contentsOf: other.attributes.suffix(moved))
        other.attributes.removeLast(moved)
    }

    /// What one caller takes to free: up to two of them, without an array of its own.
    struct Taken {
        fileprivate var first: SpanAttributes?
        fileprivate var second: SpanAttributes?
    }

    /// Takes up to two of them for the caller to free, outside any lock (freeing them is the
    /// point): they are freed when the caller lets go of the result.
    mutating func takeForCaller() -> Taken {
        Taken(first: attributes.popLast(), second: attributes.popLast())
    }

    /// Frees everything held, keeping the array's capacity.
    mutating func releaseAll() {
        attributes.removeAll(keepingCapacity: true)
    }
}
