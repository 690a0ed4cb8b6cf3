/// libsodium declares its pointer arguments non-null even for zero-length input; an empty
/// Swift buffer has a nil base address. These give a valid pointer in every case.
nonisolated(unsafe) private let emptyByte = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

extension UnsafeRawBufferPointer {
    /// A pointer for C, valid even when the buffer is empty.
    public var uint8Pointer: UnsafePointer<UInt8> {
        baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) } ?? UnsafePointer(emptyByte)
    }
}

extension UnsafeMutableRawBufferPointer {
    /// A pointer for C, valid even when the buffer is empty.
    public var uint8Pointer: UnsafeMutablePointer<UInt8> {
        baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) } ?? emptyByte
    }
}
