#!/usr/bin/python3
"""Measures captured PCM the way resamplers, dither and equalizers are judged, with numpy
and scipy, and prints one JSON object. Raw input is little-endian interleaved stereo; WAV
files are read with scipy. Subcommands:

  make-sweep RAW RATE F0 F1 SECONDS             writes a linear sweep at -6.02 dBFS, 24-bit
        values in 32-bit raw stereo (sox's own synth folds sweeps above a quarter of the rate)

  sweep RAW RATE BITS SOURCE_RATE F0 F1 SECONDS  a linear sweep F0..F1 Hz resampled to RATE:
        worst spur/image/alias (dB below the tone, anywhere outside the tone's own band) and
        the level of the sweep relative to its amplitude where it is below 20 kHz
  tone RAW RATE BITS FREQ                        harmonics 2..7 and the median noise floor (dB FS)
  diff RAW_A RAW_B BITS                           largest difference, as a fraction of full scale
  response IN_RAW OUT_RAW RATE BITS              |H(f)| in dB at log-spaced frequencies (cross spectrum)
  expected PRESET_FILE RATE                      what an Equalizer APO preset describes at the same
        frequencies: RBJ cookbook sections written out here, independently of Nimbus, through
        scipy.signal.sosfreqz
"""
import json
import sys

import numpy as np
from scipy import signal


def read_raw(path, bits):
    dtype = {16: "<i2", 32: "<i4"}[bits]
    data = np.fromfile(path, dtype=dtype).astype(np.float64) / float(2 ** (bits - 1))
    return data.reshape(-1, 2)


def db(value):
    return float(20 * np.log10(max(value, 1e-30)))


def sweep(path, rate, bits, source_rate, f0, f1, seconds):
    left = read_raw(path, bits)[:, 0]
    n = 16384
    window = signal.windows.kaiser(n, 20.0)
    nyquist = rate / 2
    slope = (f1 - f0) / seconds
    bin_hz = rate / n
    guard = 24 * bin_hz
    worst, worst_at = -400.0, 0.0
    amplitude_db = []
    # Tone level: frames whose tone is in band give the reference of what a full tone reads.
    hop = n // 2
    starts = range(int(0.2 * rate), len(left) - n - int(0.2 * rate), hop)
    spectra = []
    for start in starts:
        frame = left[start:start + n]
        spectrum = np.abs(np.fft.rfft(frame * window))
        t0, t1 = start / rate, (start + n) / rate
        fa, fb = f0 + slope * t0, f0 + slope * t1
        spectra.append((spectrum, fa, fb, start))
    reference = np.median([s.max() for s, fa, fb, _ in spectra if fb < nyquist * 0.9])
    freqs = np.fft.rfftfreq(n, 1 / rate)
    for spectrum, fa, fb, start in spectra:
        mask = np.ones_like(spectrum, dtype=bool)
        if fa < nyquist:
            mask &= ~((freqs > fa - guard) & (freqs < fb + guard))
        # DC and the last bins hold window leakage of nothing; the band ends at Nyquist.
        mask &= (freqs > 10) & (freqs < nyquist - 2 * bin_hz)
        if not mask.any():
            continue
        level = db(spectrum[mask].max() / reference)
        if level > worst:
            worst, worst_at = level, (fa + fb) / 2
        # Level: the RMS of the frame against the sweep's own (amplitude A -> A / sqrt 2).
        if fb < 20000:
            segment = left[start:start + n]
            amplitude_db.append(((fa + fb) / 2, db(np.sqrt(np.mean(segment ** 2)) * np.sqrt(2))))
    levels = [level for _, level in amplitude_db]
    return {
        "worst_db": worst, "worst_at_hz": worst_at, "level_min_db": min(levels), "level_max_db": max(levels),
        "frames": len(spectra),
    }


def tone(path, rate, bits, frequency):
    left = read_raw(path, bits)[:, 0]
    left = left[int(0.1 * rate):]
    n = min(len(left), rate * 2)
    left = left[:n]
    window = signal.windows.blackmanharris(n)
    spectrum = np.abs(np.fft.rfft(left * window)) / (window.sum() / 2)
    freqs = np.fft.rfftfreq(n, 1 / rate)

    def level_at(f):
        near = np.abs(freqs - f) < 8
        return db(spectrum[near].max())

    harmonics = {str(k): level_at(frequency * k) for k in range(2, 8) if frequency * k < rate / 2 - 100}
    away = np.ones_like(spectrum, dtype=bool)
    for k in range(1, 40):
        away &= np.abs(freqs - frequency * k) > 30
    away &= freqs > 50
    return {"fundamental_db": level_at(frequency), "harmonics_db": harmonics, "noise_floor_db": db(np.median(spectrum[away]))}


def diff(path_a, path_b, bits):
    a, b = read_raw(path_a, bits), read_raw(path_b, bits)
    count = min(len(a), len(b))
    return {"max_difference": float(np.abs(a[:count] - b[:count]).max()), "frames_a": len(a), "frames_b": len(b)}


def response(in_path, out_path, rate, bits):
    x, y = read_raw(in_path, bits)[:, 0], read_raw(out_path, bits)[:, 0]
    count = min(len(x), len(y))
    x, y = x[:count], y[:count]
    f, pxy = signal.csd(x, y, fs=rate, nperseg=16384)
    _, pxx = signal.welch(x, fs=rate, nperseg=16384)
    magnitude = np.abs(pxy / pxx)
    points = np.geomspace(30, min(18000, rate * 0.4), 60)
    return {"frequencies": points.tolist(), "db": [db(np.interp(p, f, magnitude)) for p in points]}


def make_sweep(path, rate, f0, f1, seconds):
    t = np.arange(int(rate * seconds)) / rate
    phase = 2 * np.pi * (f0 * t + (f1 - f0) * t * t / (2 * seconds))
    samples = np.round(0.5 * np.sin(phase) * 8388607).astype(np.int32) * 256
    np.repeat(samples, 2).astype("<i4").tofile(path)
    return {"frames": len(t)}


def rbj(kind, f, gain, q, rate):
    a = 10 ** (gain / 40)
    w0 = 2 * np.pi * f / rate
    cs, alpha = np.cos(w0), np.sin(w0) / (2 * q)
    if kind == "PK":
        b, den = [1 + alpha * a, -2 * cs, 1 - alpha * a], [1 + alpha / a, -2 * cs, 1 - alpha / a]
    elif kind == "LSC":
        r = 2 * np.sqrt(a) * alpha
        b = [a * ((a + 1) - (a - 1) * cs + r), 2 * a * ((a - 1) - (a + 1) * cs), a * ((a + 1) - (a - 1) * cs - r)]
        den = [(a + 1) + (a - 1) * cs + r, -2 * ((a - 1) + (a + 1) * cs), (a + 1) + (a - 1) * cs - r]
    elif kind == "HSC":
        r = 2 * np.sqrt(a) * alpha
        b = [a * ((a + 1) + (a - 1) * cs + r), -2 * a * ((a - 1) + (a + 1) * cs), a * ((a + 1) + (a - 1) * cs - r)]
        den = [(a + 1) - (a - 1) * cs + r, 2 * ((a - 1) - (a + 1) * cs), (a + 1) - (a - 1) * cs - r]
    elif kind == "LP":
        b, den = [(1 - cs) / 2, 1 - cs, (1 - cs) / 2], [1 + alpha, -2 * cs, 1 - alpha]
    elif kind == "HP":
        b, den = [(1 + cs) / 2, -(1 + cs), (1 + cs) / 2], [1 + alpha, -2 * cs, 1 - alpha]
    else:
        raise SystemExit("unknown type " + kind)
    return [x / den[0] for x in b] + [1.0] + [x / den[0] for x in den[1:]]


def expected(preset_path, rate):
    preamp, sections = 0.0, []
    for line in open(preset_path):
        words = line.replace(":", " ").split()
        if not words:
            continue
        if words[0] == "Preamp":
            preamp = float(words[1])
        elif words[0] == "Filter" and words[2] == "ON":
            kind = words[3]
            q = float(words[words.index("Q") + 1]) if "Q" in words else 0.7071
            gain = float(words[words.index("Gain") + 1]) if "Gain" in words else 0.0
            f = float(words[words.index("Fc") + 1])
            sections.append(rbj(kind, min(f, rate * 0.49), gain, q, rate))
    points = np.geomspace(30, min(18000, rate * 0.4), 60)
    _, h = signal.sosfreqz(np.array(sections), worN=points, fs=rate)
    return {"frequencies": points.tolist(), "db": [preamp + db(abs(v)) for v in h]}


def main():
    command, args = sys.argv[1], sys.argv[2:]
    if command == "make-sweep":
        result = make_sweep(args[0], int(args[1]), float(args[2]), float(args[3]), float(args[4]))
    elif command == "sweep":
        result = sweep(args[0], int(args[1]), int(args[2]), int(args[3]), float(args[4]), float(args[5]), float(args[6]))
    elif command == "tone":
        result = tone(args[0], int(args[1]), int(args[2]), float(args[3]))
    elif command == "diff":
        result = diff(args[0], args[1], int(args[2]))
    elif command == "expected":
        result = expected(args[0], int(args[1]))
    elif command == "response":
        result = response(args[0], args[1], int(args[2]), int(args[3]))
    else:
        raise SystemExit("unknown command " + command)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
