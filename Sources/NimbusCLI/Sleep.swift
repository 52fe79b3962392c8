/// `nimbus sleep 30m|90s|1h|end|off`: the daemon's sleep timer, from the shell or a cron job.
struct Sleep {
    let options: Options

    /// Seconds for "30m", "90s", "1h", "1h30m" or plain minutes ("30"); nil when unreadable.
    static func seconds(_ text: String) -> Int? {
        if let minutes = Int(text) { return minutes >= 0 ? minutes * 60 : nil }
        var total = 0, number = ""
        for character in text.lowercased() {
            if character.isNumber {
                number.append(character)
                continue
            }
            guard let value = Int(number) else { return nil }
            switch character {
            case "h": total += value * 3600
            case "m": total += value * 60
            case "s": total += value
            default: return nil
            }
            number = ""
        }
        return number.isEmpty && !text.isEmpty ? total : nil
    }

    func run() -> Int32 {
        guard options.words.count == 2 else { Console.fail("say how long: nimbus sleep 30m|end|off") }
        let word = options.words[1].lowercased()
        let argument: String
        switch word {
        case "end": argument = "end"
        case "off", "cancel": argument = "0"
        default:
            guard let seconds = Self.seconds(word) else { Console.fail("\"\(options.words[1])\" is not a time: say 30m, 1h, 90s, end or off") }
            argument = String(seconds)
        }
        let link = DaemonLink.required(options)
        _ = link.fields("sleeptimer \(argument)", failing: "cannot set the sleep timer")
        switch argument {
        case "0": Console.say("Sleep timer off.")
        case "end": Console.say("Playback pauses at the end of this song.")
        default:
            let left = link.fields("status", failing: "cannot read the status").first { $0.key == "sleeptimer" }?.value ?? argument
            let seconds = Int(left) ?? 0
            Console.say("Playback fades out and pauses in \(seconds >= 3600 ? "\(seconds / 3600) h " : "")\(seconds % 3600 / 60) min \(seconds % 60) s.")
        }
        return 0
    }
}
