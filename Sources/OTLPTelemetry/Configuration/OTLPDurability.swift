/// How hard the exporter works to make each batch survive a crash.
public enum OTLPDurability: String, Sendable, Encodable, OTLPConfigurationDecodable, CaseIterable {
    /// Write each batch; leave flushing to the operating system.
    case none
    /// Write each batch completely (and close its gzip member) before returning.
    case flush
    /// As `flush`, then `fsync` the file, so the batch survives a power loss.
    case fsync
}
