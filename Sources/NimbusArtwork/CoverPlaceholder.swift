import CFFmpeg
import Synchronization

/// The picture served for an album, song or artist that has none of its own. The Subsonic API
/// advertises a `coverArt` id for every album (clients show a grid of them and must not learn
/// of a missing picture through a failed round trip each), so `getCoverArt` of such an id
/// answers an image, as Navidrome's placeholder does — never an error body where a client
/// waits for a picture (Sublime Music's spinners never stopped, Strawberry logged a failure
/// per album). Drawn here (a disc on a quiet grey), not shipped as a file.
public enum CoverPlaceholder {
    private static let made = Mutex<[Int: [UInt8]]>([:])

    /// The placeholder as a JPEG `size` pixels square (16…1024; 0 means 512).
    public static func jpeg(size: Int) -> [UInt8] {
        let side = size == 0 ? 512 : max(16, min(size, 1024))
        if let done = made.withLock({ $0[side] }) { return done }
        let jpeg = (try? draw(side: side)) ?? []
        made.withLock { $0[side] = jpeg }
        return jpeg
    }

    /// A disc (a ring with a hole) in light grey on a darker grey, drawn straight into the
    /// luma plane of a full-range 4:2:0 frame; chroma stays neutral.
    private static func draw(side: Int) throws(CoverError) -> [UInt8] {
        guard let frame = av_frame_alloc() else { throw CoverError("out of memory") }
        defer { CoverScaler.release(frame) }
        frame.pointee.width = Int32(side)
        frame.pointee.height = Int32(side)
        frame.pointee.format = AV_PIX_FMT_YUVJ420P.rawValue
        guard av_frame_get_buffer(frame, 0) == 0, let luma = frame.pointee.data.0, let blue = frame.pointee.data.1,
            let red = frame.pointee.data.2
        else { throw CoverError("out of memory") }
        let centre = Double(side) / 2, outer = Double(side) * 0.36, inner = Double(side) * 0.07
        let stride = Int(frame.pointee.linesize.0)
        for y in 0..<side {
            for x in 0..<side {
                let distance = ((Double(x) + 0.5 - centre) * (Double(x) + 0.5 - centre) + (Double(y) + 0.5 - centre) * (Double(y) + 0.5 - centre)).squareRoot()
                let groove = distance > outer * 0.55 && distance < outer * 0.58
                luma[y * stride + x] = distance <= outer && distance >= inner ? (groove ? 150 : 168) : 96
            }
        }
        for plane in [(blue, Int(frame.pointee.linesize.1)), (red, Int(frame.pointee.linesize.2))] {
            for row in 0..<(side + 1) / 2 { (plane.0 + row * plane.1).initialize(repeating: 128, count: (side + 1) / 2) }
        }
        return try CoverScaler.encode(frame, width: side, height: side)
    }
}
