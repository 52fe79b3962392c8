import Foundation
import Synchronization
import NimbusHarness

/// Issue 2's figures: round trips, CPU per command, command lists, many connections, idle
/// wake-up latency, memory after start.
struct ProtocolBenchmarks {
    let pair: DaemonPair
    let quick: Bool

    private var roundTrips: Int { quick ? 2_000 : 20_000 }

    func run(into report: inout BenchReport) {
        report.section("protocol engine")
        for command in ["ping", "status"] {
            let rate = pair.measure { daemon -> Double in
                let client = try! daemon.connect()
                return Double(roundTrips) / seconds { for _ in 0..<roundTrips { _ = try! client.request(command) } }
            }
            let cpu = pair.measure { daemon -> Double in
                let client = try! daemon.connect()
                let before = ProcessStats.cpuMicroseconds(daemon.process.processIdentifier)
                for _ in 0..<roundTrips { _ = try! client.request(command) }
                return (ProcessStats.cpuMicroseconds(daemon.process.processIdentifier) - before) / Double(roundTrips)
            }
            report.add(Figure(name: "\(command) round trips, one connection", unit: "/s", nimbus: rate.0, mpd: rate.1, better: .higher))
            report.add(Figure(name: "server CPU per \(command)", unit: "µs", nimbus: cpu.0, mpd: cpu.1, better: .lower))
        }
        let batches = quick ? 100 : 1_000
        let batch = "command_list_ok_begin\n" + String(repeating: "status\n", count: 100) + "command_list_end\n"
        let listRate = pair.measure { daemon -> Double in
            let client = try! daemon.connect()
            return Double(batches) / seconds {
                for _ in 0..<batches {
                    try! client.send(batch)
                    _ = try! client.readResponse()
                }
            }
        }
        report.add(Figure(name: "100-command list batches", unit: "/s", nimbus: listRate.0, mpd: listRate.1, better: .higher))
        let listCPU = pair.measure { daemon -> Double in
            let client = try! daemon.connect()
            let before = ProcessStats.cpuMicroseconds(daemon.process.processIdentifier)
            for _ in 0..<batches {
                try! client.send(batch)
                _ = try! client.readResponse()
            }
            return (ProcessStats.cpuMicroseconds(daemon.process.processIdentifier) - before) / Double(batches * 100)
        }
        report.add(Figure(name: "server CPU per status inside lists", unit: "µs", nimbus: listCPU.0, mpd: listCPU.1, better: .lower))

        let perConnection = quick ? 100 : 500
        let concurrent = pair.measure { daemon -> Double in
            let endpoint = daemon.endpoint
            return seconds {
                DispatchQueue.concurrentPerform(iterations: 50) { _ in
                    let client = try! LineClient.connected(endpoint).0
                    for _ in 0..<perConnection { _ = try! client.request("status") }
                }
            }
        }
        report.add(
            Figure(
                name: "50 connections × \(perConnection) status", unit: "s", nimbus: concurrent.0, mpd: concurrent.1,
                better: .lower))

        let wakes = quick ? 200 : 2_000
        let latency = pair.measure { daemon in idleWakeLatency(daemon, wakes: wakes) }
        report.add(Figure(name: "idle wake-up latency, median", unit: "µs", nimbus: latency.0, mpd: latency.1, better: .lower))

        let rss = pair.measure { ProcessStats.residentKiB($0.process.processIdentifier) }
        report.add(Figure(name: "RSS after the runs above", unit: "KiB", nimbus: rss.0, mpd: rss.1, better: .lower))
    }

    /// Time from `sendmessage` on one connection to the `changed: message` on an idling one.
    private func idleWakeLatency(_ daemon: ServerProcess, wakes: Int) -> Double {
        let idler = try! daemon.connect()
        let sender = try! daemon.connect()
        _ = try! idler.request("subscribe bench")
        var samples: [Double] = []
        for _ in 0..<wakes {
            try! idler.send("idle message\n")
            _ = try! sender.request("ping")  // the idle request has been processed once this returns
            let start = DispatchTime.now().uptimeNanoseconds
            try! sender.send("sendmessage bench x\n")
            _ = try! idler.readResponse()
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
            _ = try! sender.readResponse()
            _ = try! idler.request("readmessages")
        }
        return samples.sorted()[samples.count / 2]
    }
}
