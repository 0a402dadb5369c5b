package import OTLPWire

/// A sink that keeps its files' item counts (rotation, retention): the exporter tells it how many spans or log
/// records each write holds (whole records).
package protocol OTLPItemCountingSink: OTLPByteSink {
    /// Writes all of `bytes`, which hold `itemCount` spans or log records, or throws.
    func write(_ bytes: UnsafeRawBufferPointer, itemCount: Int) throws(OTLPWriteError)
}
