/// libsodium declares its pointer arguments non-null even for zero-length input; an empty
/// Swift buffer has a nil base address. These give a valid pointer in every case.
nonisolated(unsafe) private let emptyByte = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

extension UnsafeRawBufferPointer {
    var bytes: UnsafePointer<UInt8> {
        baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) } ?? UnsafePointer(emptyByte)
    }
}

extension UnsafeMutableRawBufferPointer {
    var bytes: UnsafeMutablePointer<UInt8> {
        baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) } ?? emptyByte
    }
}
