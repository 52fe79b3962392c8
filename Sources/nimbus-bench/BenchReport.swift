import Foundation

/// One measured figure for both daemons and whether higher or lower is better.
struct Figure {
    enum Better { case higher, lower }
    let name: String
    let unit: String
    let nimbus: Double
    let mpd: Double
    let better: Better
    /// The ratio an issue asked for (1.25 for round trips, 0.8 for CPU, 1.1 for VmRSS); 1 when none.
    var goal: Double = 1

    var ratio: Double { mpd == 0 ? (nimbus == 0 ? 1 : .nan) : nimbus / mpd }
    var meetsGoal: Bool { better == .higher ? ratio >= goal : ratio <= goal }
}

struct BenchReport {
    private(set) var figures: [Figure] = []
    private var sections: [(String, Int)] = []

    mutating func section(_ title: String) { sections.append((title, figures.count)) }
    mutating func add(_ figure: Figure) { figures.append(figure) }

    func print() {
        let header = "figure".padding(toLength: 46, withPad: " ", startingAt: 0)
            + "nimbus".leftPadded(14) + "mpd".leftPadded(14) + "ours/MPD".leftPadded(10) + "  goal"
        Swift.print(header)
        for (index, figure) in figures.enumerated() {
            if let section = sections.first(where: { $0.1 == index }) { Swift.print("-- \(section.0)") }
            let name = "\(figure.name) (\(figure.unit))".padding(toLength: 46, withPad: " ", startingAt: 0)
            let goal = (figure.better == .higher ? "≥ " : "≤ ") + String(format: figure.goal == 1 ? "%.1f" : "%.2f", figure.goal)
            Swift.print(
                name + format(figure.nimbus).leftPadded(14) + format(figure.mpd).leftPadded(14)
                    + String(format: "%.2f", figure.ratio).leftPadded(10) + "  \(goal) \(figure.meetsGoal ? "met" : "MISSED")")
        }
    }

    private func format(_ value: Double) -> String {
        value >= 1000 ? String(format: "%.0f", value) : String(format: "%.2f", value)
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
