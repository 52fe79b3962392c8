import Glibc
import NimbusInput

/// URL and HTTP odds and ends the providers share.
enum HTTPHelpers {
    /// Percent-encodes everything but RFC 3986's unreserved characters (and `/` if `keepSlash`).
    static func encode(_ text: String, keepSlash: Bool = true) -> String {
        var result = ""
        for byte in text.utf8 {
            let unreserved = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "~")
            if unreserved || (keepSlash && byte == UInt8(ascii: "/")) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                result += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return result
    }

    /// Decodes `%XX` (either case); invalid sequences stay as they are.
    static func decode(_ text: String) -> String {
        var bytes: [UInt8] = []
        let source = Array(text.utf8)
        var index = 0
        while index < source.count {
            if source[index] == UInt8(ascii: "%"), index + 2 < source.count,
                let value = UInt8(String(decoding: source[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index += 3
            } else {
                bytes.append(source[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `application/x-www-form-urlencoded` body.
    static func form(_ fields: [(String, String)]) -> [UInt8] {
        Array(fields.map { encode($0.0, keepSlash: false) + "=" + encode($0.1, keepSlash: false) }.joined(separator: "&").utf8)
    }

    /// RFC 1123 dates (`Mon, 30 Nov 2026 14:14:45 GMT`) as seconds since 1970.
    static func parseHTTPDate(_ text: String) -> Int64? {
        let parts = text.split(separator: " ")
        guard parts.count >= 5 else { return nil }
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard let day = Int32(parts[1]), let month = months.firstIndex(of: String(parts[2])), let year = Int32(parts[3]) else {
            return nil
        }
        let clock = parts[4].split(separator: ":").compactMap { Int32($0) }
        guard clock.count == 3 else { return nil }
        var components = tm()
        components.tm_year = year - 1900
        components.tm_mon = Int32(month)
        components.tm_mday = day
        components.tm_hour = clock[0]
        components.tm_min = clock[1]
        components.tm_sec = clock[2]
        return Int64(timegm(&components))
    }

    /// ISO 8601 (`2026-11-30T14:14:45Z`, optional fraction) as seconds since 1970.
    static func parseISODate(_ text: String) -> Int64? {
        let digits = text.split(whereSeparator: { !$0.isNumber }).compactMap { Int32($0) }
        guard digits.count >= 6 else { return nil }
        var components = tm()
        components.tm_year = digits[0] - 1900
        components.tm_mon = digits[1] - 1
        components.tm_mday = digits[2]
        components.tm_hour = digits[3]
        components.tm_min = digits[4]
        components.tm_sec = digits[5]
        return Int64(timegm(&components))
    }

    /// Maps an unwanted status to the cache's error kinds; a Retry-After travels with it for
    /// whoever retries.
    static func error(for response: HTTPResponse, _ what: String) -> RemoteError {
        switch response.status {
        case 401, 403: return RemoteError(.unauthorized, "\(what): access denied (HTTP \(response.status))")
        case 404, 410: return RemoteError(.notFound, "\(what): not found (HTTP \(response.status))")
        case 429, 500...599:
            return RemoteError(.transient, "\(what): HTTP \(response.status)", retryAfter: response.retryAfter)
        default: return RemoteError(.permanent, "\(what): HTTP \(response.status)")
        }
    }

    static func networkError(_ error: HTTPError, _ what: String) -> RemoteError {
        RemoteError(error.kind == .cancelled ? .permanent : .transient, "\(what): \(error.message)", unreachable: error.kind == .unreachable)
    }
}
