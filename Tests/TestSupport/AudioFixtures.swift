import Foundation

/// Test signals whose samples identify their own frame index, so an output file shows
/// exactly which frames were played.
public enum AudioFixtures {
    /// 16-bit stereo at 44.1 kHz: left = frame & 0xFFFF, right = frame >> 16.
    public static func writeRampWAV(to path: String, frames: Int, rate: Int = 44100) throws {
        var data = Data()
        func u32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8))
        u32(36 + frames * 4)
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16)
        u16(1)
        u16(2)
        u32(rate)
        u32(rate * 4)
        u16(4)
        u16(16)
        data.append(contentsOf: Array("data".utf8))
        u32(frames * 4)
        for frame in 0..<frames {
            u16(frame & 0xFFFF)
            u16(frame >> 16)
        }
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// The frame index encoded in the first frame of 16-bit stereo `bytes`.
    public static func rampIndex<C: Collection>(_ bytes: C) -> Int where C.Element == UInt8, C.Index == Int {
        let start = bytes.startIndex
        let low = Int(bytes[start]) | Int(bytes[start + 1]) << 8
        let high = Int(bytes[start + 2]) | Int(bytes[start + 3]) << 8
        return low | high << 16
    }
}
