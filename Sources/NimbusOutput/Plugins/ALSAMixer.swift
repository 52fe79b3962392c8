import CALSA
import Glibc
import Synchronization

/// A hardware volume control on a sound card (`mixer_type "hardware"`), through snd_mixer.
public final class ALSAMixer: HardwareMixer {
    private struct Handles {
        var mixer: OpaquePointer?
        var element: OpaquePointer?
    }

    private let handles: Mutex<Handles>

    /// Opens `control` (e.g. "PCM", "Master") on the card behind `device` (`hw:0` for
    /// `default`). Nil when the card or control does not exist.
    public init?(device: String, control: String?) {
        calsa_silence_errors()
        var mixer: OpaquePointer?
        guard snd_mixer_open(&mixer, 0) == 0 else { return nil }
        let card = device.hasPrefix("hw:") ? String(device.prefix { $0 != "," }) : "default"
        guard snd_mixer_attach(mixer, card) == 0, snd_mixer_selem_register(mixer, nil, nil) == 0, snd_mixer_load(mixer) == 0 else {
            snd_mixer_close(mixer)
            return nil
        }
        var candidate = snd_mixer_first_elem(mixer)
        var chosen: OpaquePointer?
        let names = control.map { [$0] } ?? ["PCM", "Master", "Speaker", "Headphone"]
        outer: for name in names {
            candidate = snd_mixer_first_elem(mixer)
            while let current = candidate {
                if snd_mixer_selem_has_playback_volume(current) != 0, String(cString: snd_mixer_selem_get_name(current)) == name {
                    chosen = current
                    break outer
                }
                candidate = snd_mixer_elem_next(current)
            }
        }
        guard let chosen else {
            snd_mixer_close(mixer)
            return nil
        }
        handles = Mutex(Handles(mixer: mixer, element: chosen))
    }

    deinit {
        handles.withLock { if let mixer = $0.mixer { snd_mixer_close(mixer) } }
    }

    /// 0…100.
    public var volume: Int? {
        handles.withLock { state -> Int? in
            guard let element = state.element else { return nil }
            snd_mixer_handle_events(state.mixer)
            var minimum = 0, maximum = 0, value = 0
            snd_mixer_selem_get_playback_volume_range(element, &minimum, &maximum)
            guard maximum > minimum, snd_mixer_selem_get_playback_volume(element, SND_MIXER_SCHN_FRONT_LEFT, &value) == 0 else {
                return nil
            }
            return ((value - minimum) * 100 + (maximum - minimum) / 2) / (maximum - minimum)
        }
    }

    public func setVolume(_ percent: Int) -> Bool {
        handles.withLock { state -> Bool in
            guard let element = state.element else { return false }
            var minimum = 0, maximum = 0
            snd_mixer_selem_get_playback_volume_range(element, &minimum, &maximum)
            let value = minimum + (maximum - minimum) * percent / 100
            return snd_mixer_selem_set_playback_volume_all(element, value) == 0
        }
    }
}
