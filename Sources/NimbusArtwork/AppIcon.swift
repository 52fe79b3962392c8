import CFFmpeg

/// The web page's icon as PNG for a phone's home screen and the web app manifest (browsers
/// want PNGs of 192 and 512 pixels there; the page's own `icon.svg` serves everywhere else).
/// Drawn here from the same shapes as `icon.svg` — a blue cloud with a white note — and
/// encoded by FFmpeg's PNG encoder, so no picture file is shipped.
public enum AppIcon {
    /// A square PNG `size` pixels wide (16…1024), or nil if FFmpeg has no PNG encoder.
    public static func png(size: Int) -> [UInt8]? {
        let side = max(16, min(size, 1024))
        var pixels = [UInt8](repeating: 0, count: side * side * 4)
        // Four samples a pixel each way: edges are smooth at any size.
        let samples = 4
        let unit = 64.0 / Double(side)
        for row in 0..<side {
            for column in 0..<side {
                var cloud = 0, note = 0
                for sy in 0..<samples {
                    for sx in 0..<samples {
                        let x = (Double(column) + (Double(sx) + 0.5) / Double(samples)) * unit
                        let y = (Double(row) + (Double(sy) + 0.5) / Double(samples)) * unit
                        if inNote(x, y) { note += 1 } else if inCloud(x, y) { cloud += 1 }
                    }
                }
                let total = Double(samples * samples)
                let coverage = Double(cloud + note) / total
                guard coverage > 0 else { continue }
                // Blue #3b5bdb and white, mixed by how much of the pixel each covers.
                let white = Double(note) / Double(cloud + note)
                let at = (row * side + column) * 4
                pixels[at] = UInt8((59 + (255 - 59) * white).rounded())
                pixels[at + 1] = UInt8((91 + (255 - 91) * white).rounded())
                pixels[at + 2] = UInt8((219 + (255 - 219) * white).rounded())
                pixels[at + 3] = UInt8((255 * coverage).rounded())
            }
        }
        return encode(pixels, side: side)
    }

    /// `icon.svg`'s cloud in its 64-unit box: a big circle, a small one, and the base between.
    static func inCloud(_ x: Double, _ y: Double) -> Bool {
        func inside(_ cx: Double, _ cy: Double, _ r: Double) -> Bool { (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r }
        return inside(35, 26, 17) || inside(20, 36, 14) || inside(50, 38, 12) || (x >= 20 && x <= 50 && y >= 30 && y <= 50)
    }

    /// The note: a stem, its flag and a round head.
    static func inNote(_ x: Double, _ y: Double) -> Bool {
        let stem = x >= 30 && x <= 34 && y >= 20 && y <= 43
        let flag = x >= 30 && x <= 42 && y >= 20 && y <= 27
        let head = (x - 28) * (x - 28) / 36 + (y - 43) * (y - 43) / 25 <= 1
        return stem || flag || head
    }

    private static func encode(_ pixels: [UInt8], side: Int) -> [UInt8]? {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_PNG), let context = avcodec_alloc_context3(codec) else { return nil }
        var owner: UnsafeMutablePointer<AVCodecContext>? = context
        defer { avcodec_free_context(&owner) }
        guard let frame = av_frame_alloc() else { return nil }
        defer { CoverScaler.release(frame) }
        guard let packet = av_packet_alloc() else { return nil }
        var packetOwner: UnsafeMutablePointer<AVPacket>? = packet
        defer { av_packet_free(&packetOwner) }
        context.pointee.width = Int32(side)
        context.pointee.height = Int32(side)
        context.pointee.pix_fmt = AV_PIX_FMT_RGBA
        context.pointee.time_base = AVRational(num: 1, den: 1)
        frame.pointee.width = Int32(side)
        frame.pointee.height = Int32(side)
        frame.pointee.format = AV_PIX_FMT_RGBA.rawValue
        guard avcodec_open2(context, codec, nil) == 0, av_frame_get_buffer(frame, 0) == 0, let plane = frame.pointee.data.0 else { return nil }
        let stride = Int(frame.pointee.linesize.0)
        pixels.withUnsafeBufferPointer { source in
            for row in 0..<side { (plane + row * stride).update(from: source.baseAddress! + row * side * 4, count: side * 4) }
        }
        guard avcodec_send_frame(context, frame) == 0, avcodec_receive_packet(context, packet) == 0, let data = packet.pointee.data else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: Int(packet.pointee.size)))
    }
}
