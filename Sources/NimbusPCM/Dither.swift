/// TPDF dither for cutting samples to 16 (or 8) bits: the sum of two independent uniform
/// values of ±½ LSB added before rounding. Without it the rounding error of a fade or a quiet
/// passage follows the signal and is heard as distortion; with it the error is a constant,
/// signal-independent hiss 4.8 dB above plain rounding, far below what 16 bits can play.
/// xorshift32 because it costs a few instructions per sample and needs no locking: each
/// converter owns one.
public struct Dither: Sendable {
    private var state: UInt32

    public init(seed: UInt32 = 0x9E37_79B9) { state = seed == 0 ? 1 : seed }

    /// Two uniform 16-bit values from one step; their sum is triangular in −65536…65534,
    /// i.e. ±1 LSB in units of 1/65536 LSB.
    @inline(__always)
    public mutating func nextFixed() -> Int32 {
        state ^= state << 13
        state ^= state >> 17
        state ^= state << 5
        return Int32(Int16(truncatingIfNeeded: state)) + Int32(Int16(truncatingIfNeeded: state >> 16))
    }

    /// The same in LSB units, as a Float in (−1, 1).
    @inline(__always)
    public mutating func next() -> Float { Float(nextFixed()) * (1 / 65536) }
}

/// MPD's PcmDither (`src/pcm/Dither.cxx`): error feedback and a linear congruential
/// generator, reducing wider integer samples to 16 bits. Kept beside `Dither` for what must
/// match MPD sample for sample (the fingerprints `getfingerprint` computes); everything
/// heard uses `Dither`.
public struct ErrorFeedbackDither: Sendable {
    private var error: (Int64, Int64, Int64) = (0, 0, 0)
    private var random: UInt32 = 0

    public init() {}

    public mutating func reduce(_ input: Int64, bits: Int) -> Int16 {
        let scale = Int64(bits - 16)
        let minimum = -(Int64(1) << (bits - 1)), maximum = (Int64(1) << (bits - 1)) - 1
        let round = Int64(1) << (scale - 1), mask = (Int64(1) << scale) - 1
        var sample = input + error.0 - error.1 + error.2
        error.2 = error.1
        error.1 = error.0 / 2
        var output = sample + round
        let next = random &* 0x0019_660D &+ 0x3C6E_F35F
        output += (Int64(next) & mask) - (Int64(random) & mask)
        random = next
        if output > maximum {
            output = maximum
            if sample > maximum { sample = maximum }
        } else if output < minimum {
            output = minimum
            if sample < minimum { sample = minimum }
        }
        output &= ~mask
        error.0 = sample - output
        return Int16(truncatingIfNeeded: output >> scale)
    }
}
