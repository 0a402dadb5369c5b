import ArgumentParser
import OTLPWire

/// Refuses an output that is one of the inputs, by device and inode (``OTLPFileStatus``): same path,
/// hard link, symbolic link, or standard output redirected onto an input. Opening it would truncate the
/// input before it is read, and appending to it (`>>`) would feed the output back in. A usage error (64).
enum OutputCollision {
    /// Throws a `ValidationError` naming both paths when `output` (`-`: standard output) is the same regular
    /// file as one of `inputs` (`-`: standard input).
    static func check(output: String, inputs: [String]) throws {
        guard let target = output == "-" ? OTLPFileStatus.reached(byDescriptor: 1) : OTLPFileStatus.reached(by: output) else { return }
        for input in inputs
        where target.overlaps(input == "-" ? OTLPFileStatus.reached(byDescriptor: 0) : OTLPFileStatus.reached(by: input)) {
            throw ValidationError(
                "output \(output == "-" ? "<stdout>" : output) is the same file as input \(displayName(input)): writing it would destroy the input before it is read"
            )
        }
    }
}
