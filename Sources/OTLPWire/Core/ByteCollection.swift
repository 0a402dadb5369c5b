/// The bytes of the public entry points that take any collection of bytes (an array, `Data`, a slice, a
/// buffer pointer), handed to the readers, which work on raw memory.
enum ByteCollection {
    /// Runs `body` on the bytes of `bytes`: in place when the collection keeps them in contiguous memory,
    /// else on a copy.
    static func withBytes<Result, Failure: Error>(
        _ bytes: some Collection<UInt8>, _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let inPlace = bytes.withContiguousStorageIfAvailable { buffer in
            Swift.Result { () throws(Failure) in try body(UnsafeRawBufferPointer(buffer)) }
        }
        if let inPlace { return try inPlace.get() }
        return try Array(bytes).withUnsafeBytes { buffer in Swift.Result { () throws(Failure) in try body(buffer) } }.get()
    }
}
