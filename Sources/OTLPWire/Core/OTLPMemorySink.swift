/// Collects written bytes in memory (tests, in-process consumers).
package final class OTLPMemorySink: OTLPByteSink {
    /// Every byte written so far, in order.
    package private(set) var bytes: [UInt8] = []
    /// Number of `write` calls, so tests can check that each record is written in one call.
    package private(set) var writeCount = 0

    /// An empty sink.
    package init() {}

    package func write(_ bytes: UnsafeRawBufferPointer) throws(OTLPWriteError) {
        self.bytes.append(contentsOf: bytes)
        writeCount += 1
    }

    package func sync() throws(OTLPWriteError) {}

    /// Forgets what was written (keeps the capacity).
    package func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        writeCount = 0
    }
}
