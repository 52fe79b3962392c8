import Foundation

/// Runs a command-line tool to completion and returns its standard output.
/// Runs a program to its end; its standard output (and error, which also goes into a failure),
/// or a failure when it exits non-zero. `environment` is added to this process's.
@discardableResult
public func runTool(
    _ executable: String, _ arguments: [String], input: Data? = nil, environment: [String: String] = [:],
    includingErrors: Bool = false
) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/" + executable)
    process.arguments = arguments
    if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    let inputPipe = Pipe()
    if input != nil { process.standardInput = inputPipe }
    try process.run()
    if let input {
        inputPipe.fileHandleForWriting.write(input)
        try inputPipe.fileHandleForWriting.close()
    }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw ToolFailure(
            description: "\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): "
                + String(decoding: errorData, as: UTF8.self))
    }
    return String(decoding: data, as: UTF8.self) + (includingErrors ? String(decoding: errorData, as: UTF8.self) : "")
}

public struct ToolFailure: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}

/// Interleaved signed 16-bit stereo sine samples, the shape every fixture starts from.
public func sineS16(frames: Int, rate: Double = 44100, frequency: Double = 440, amplitude: Double = 0.5) -> [Int16] {
    var samples: [Int16] = []
    samples.reserveCapacity(frames * 2)
    for frame in 0..<frames {
        let value = Int16(amplitude * 32767 * sin(2 * Double.pi * frequency * Double(frame) / rate))
        samples.append(value)
        samples.append(value)
    }
    return samples
}
