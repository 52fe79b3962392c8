/// Zeros to append from, so a buffer grows without `repeatElement`: appending a repeated
/// element goes through the generic sequence path, which in an unoptimised (debug) build
/// allocates once per element — on the output thread, that was half a million allocations a
/// second. Appending from a buffer is a copy. Never written after it is made.
nonisolated(unsafe) private let zeroPage: UnsafeRawBufferPointer = {
    let page = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    page.initializeMemory(as: UInt8.self, repeating: 0)
    return UnsafeRawBufferPointer(page)
}()

extension Array where Element == Float {
    /// Appends `count` zeros; allocates only when the capacity is short.
    mutating func appendZeros(_ count: Int) {
        let page = zeroPage.bindMemory(to: Float.self)
        var left = count
        reserveCapacity(self.count + count)
        while left > 0 {
            let step = Swift.min(left, page.count)
            append(contentsOf: UnsafeBufferPointer(rebasing: page[..<step]))
            left -= step
        }
    }
}

extension Array where Element == UInt8 {
    /// Appends `count` zero bytes; allocates only when the capacity is short.
    mutating func appendZeros(_ count: Int) {
        let page = zeroPage.bindMemory(to: UInt8.self)
        var left = count
        reserveCapacity(self.count + count)
        while left > 0 {
            let step = Swift.min(left, page.count)
            append(contentsOf: UnsafeBufferPointer(rebasing: page[..<step]))
            left -= step
        }
    }
}
