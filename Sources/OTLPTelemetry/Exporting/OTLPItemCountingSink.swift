package import OTLPWire

/// A sink that keeps its files' item counts (rotation, retention): the exporter tells it how many spans or log
/// records each write holds (whole records).
package protocol OTLPItemCountingSink: OTLPByteSink {
    /// Writes all of `bytes`, which hold `itemCount` spans or log records, or throws.
    func write(_ bytes: UnsafeRawBufferPointer, itemCount: Int) throws(OTLPWriteError)
    /// ``write(_:itemCount:)``, calling `beforeWriting` with where the bytes go, right before they are written.
    func write(_ bytes: UnsafeRawBufferPointer, itemCount: Int, beforeWriting: (OTLPExportDestination) -> Void) throws(OTLPWriteError)
}

extension OTLPItemCountingSink {
    /// ``write(_:itemCount:)``, calling `beforeWriting` with where the bytes go, right before they are written
    /// (after any rotation), when the sink can say: the journal's write-ahead intent. This default says nothing.
    package func write(
        _ bytes: UnsafeRawBufferPointer, itemCount: Int, beforeWriting: (OTLPExportDestination) -> Void
    ) throws(OTLPWriteError) {
        try write(bytes, itemCount: itemCount)
    }
}
