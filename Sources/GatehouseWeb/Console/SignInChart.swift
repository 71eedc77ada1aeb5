import Accounts
import AuthCore
import CivilTime
import Foundation
import ServerSeam

/// The console's "sign-ins per hour, last 7 days" chart as inline SVG, drawn on the server so it
/// needs no script. Built only from numbers and fixed labels, so it is safe to embed unescaped.
struct SignInChart {
    static let hours = 7 * 24
    /// The bars' width; the peak's label sits in a gutter to their right, clear of them.
    static let plotWidth = 840.0
    static let width = 880.0
    static let height = 200.0
    static let plotTop = 10.0
    static let plotBottom = 170.0
    /// A day narrower than this (the window's cut first and last) goes unlabelled.
    static let narrowestLabelledDay = 48.0

    let counts: [SignInHour]
    /// The start of the first hour shown.
    let start: Date

    /// The hour where a 7-day window ending at `now` starts.
    static func windowStart(endingAt now: Date) -> Date {
        let hourStart = (now.timeIntervalSince1970 / 3600).rounded(.down) * 3600
        return Date(timeIntervalSince1970: hourStart - Double(hours - 1) * 3600)
    }

    var totals: (completed: Int, failed: Int) {
        counts.reduce((0, 0)) { ($0.0 + $1.completed, $0.1 + $1.failed) }
    }

    var summary: String {
        let (completed, failed) = totals
        let signIns = completed == 1 ? "1 sign-in" : "\(CountText.grouped(completed)) sign-ins"
        let failures = failed == 1 ? "1 failure" : "\(CountText.grouped(failed)) failures"
        return "\(signIns), \(failures) in the last 7 days"
    }

    var svg: String {
        var byHour = [Int: SignInHour]()
        for count in counts {
            let index = Int((count.hour.timeIntervalSince(start) / 3600).rounded())
            if (0..<Self.hours).contains(index) { byHour[index] = count }
        }
        let peak = max(1, byHour.values.map { $0.completed + $0.failed }.max() ?? 1)
        let slot = Self.plotWidth / Double(Self.hours)
        let scale = (Self.plotBottom - Self.plotTop) / Double(peak)
        var parts = [
            #"<svg class="chart" viewBox="0 0 \#(Int(Self.width)) \#(Int(Self.height))" role="img" aria-label="\#(summary)">"#,
            #"<line class="chart-axis" x1="0" y1="\#(Self.plotBottom)" x2="\#(Self.plotWidth)" y2="\#(Self.plotBottom)"/>"#,
            #"<line class="chart-grid" x1="0" y1="\#(Self.plotTop)" x2="\#(Self.plotWidth)" y2="\#(Self.plotTop)"/>"#,
            #"<text class="chart-label" x="\#(Self.plotWidth + 6)" y="\#(Self.plotTop + 4)">\#(peak)</text>"#
        ]
        for (index, count) in byHour.sorted(by: { $0.key < $1.key }) {
            let x = Double(index) * slot + 0.5
            let completedHeight = Double(count.completed) * scale
            let failedHeight = Double(count.failed) * scale
            if count.completed > 0 {
                parts.append(
                    Self.bar(
                        "chart-completed", x: x, y: Self.plotBottom - completedHeight,
                        width: slot - 1, height: completedHeight))
            }
            if count.failed > 0 {
                parts.append(
                    Self.bar(
                        "chart-failed", x: x, y: Self.plotBottom - completedHeight - failedHeight,
                        width: slot - 1, height: failedHeight))
            }
        }
        parts.append(days(slot: slot))
        parts.append("</svg>")
        return parts.joined()
    }

    /// A line at each UTC midnight and each day's label under its middle. `console.js` redraws
    /// them at the viewer's own midnights from the group's data: the window's start (epoch
    /// seconds), an hour's width, the lines' top and bottom, the labels' baseline, the narrowest
    /// day labelled.
    private func days(slot: Double) -> String {
        let first = (start.timeIntervalSince1970 / 86_400).rounded(.up) * 86_400
        let midnights = stride(from: first, to: start.timeIntervalSince1970 + Double(Self.hours) * 3600, by: 86_400)
        let xs = midnights.map { ($0 - start.timeIntervalSince1970) / 3600 * slot }
        var parts = [
            #"<g class="chart-days" data-start="\#(Int(start.timeIntervalSince1970))" data-hour="\#(slot)" "#
                + #"data-top="\#(Self.plotTop)" data-bottom="\#(Self.plotBottom)" data-baseline="\#(Self.plotBottom + 18)" "#
                + #"data-narrowest="\#(Self.narrowestLabelledDay)">"#
        ]
        for x in xs {
            parts.append(#"<line class="chart-grid" x1="\#(x)" y1="\#(Self.plotTop)" x2="\#(x)" y2="\#(Self.plotBottom)"/>"#)
        }
        let edges = [0] + xs + [Self.plotWidth]
        for (left, right) in zip(edges, edges.dropFirst()) where right - left >= Self.narrowestLabelledDay {
            let label = Self.dayLabel(start.addingTimeInterval((left + right) / 2 / slot * 3600))
            parts.append(
                #"<text class="chart-label" x="\#((left + right) / 2)" y="\#(Self.plotBottom + 18)" text-anchor="middle">\#(label)</text>"#
            )
        }
        parts.append("</g>")
        return parts.joined()
    }

    /// The UTC weekday and day of the month (`Mon 23`), as the English format style writes them,
    /// without the calendar that style loads.
    static func dayLabel(_ date: Date) -> String {
        let days = Int64((date.timeIntervalSince1970 / 86_400).rounded(.down))
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][Int((days % 7 + 7) % 7)]
        return "\(weekday) \(CivilTime.civilDate(daysSince1970: days).day)"
    }

    private static func bar(_ className: String, x: Double, y: Double, width: Double, height: Double) -> String {
        let number = { (value: Double) in String(format: "%.1f", value) }
        return #"<rect class="\#(className)" x="\#(number(x))" y="\#(number(y))" "#
            + #"width="\#(number(max(width, 1)))" height="\#(number(max(height, 1)))"/>"#
    }
}
