import Foundation

/// An app's accent colour turned into the hosted page's colours, each kept readable (WCAG 2.2 AA:
/// 4.5:1 for text): black or white text on the accent, whichever contrasts more, and links in the
/// accent's hue darkened (light theme) or lightened (dark theme) until they reach 4.5:1 on the card
/// and on its footer.
struct AppTheme: Equatable {
    /// `#rrggbb`, lower case, as every colour here.
    let accent: String
    /// Black or white: the text on the primary button.
    let accentText: String
    /// The button under the pointer.
    let accentHover: String
    /// Links on the light card, and on the dark one.
    let linkLight, linkDark: String

    /// The card footer's background in each theme (`--surface-2` in gatehouse.css), where links
    /// contrast least: darker than the light card (`#ffffff`), lighter than the dark one (`#151822`).
    static let lightSurface = RGB(red: 0xf8 / 255, green: 0xf9 / 255, blue: 0xfb / 255)
    static let darkSurface = RGB(red: 0x1b / 255, green: 0x1f / 255, blue: 0x2b / 255)
    static let minimumContrast = 4.5

    init?(accent hex: String) {
        guard let color = RGB(hex: hex) else { return nil }
        accent = color.hex
        let white = RGB(red: 1, green: 1, blue: 1)
        let black = RGB(red: 0, green: 0, blue: 0)
        let textIsWhite = color.contrast(with: white) >= color.contrast(with: black)
        accentText = textIsWhite ? "#ffffff" : "#000000"
        // Hovering moves away from the text colour, so the contrast only grows.
        accentHover = color.mixed(with: textIsWhite ? black : white, amount: 0.15).hex
        linkLight = color.readable(on: Self.lightSurface, toward: black).hex
        linkDark = color.readable(on: Self.darkSurface, toward: white).hex
    }

    /// The stylesheet `/auth/app-theme.css` serves: custom properties that gatehouse.css reads,
    /// scoped to pages marked `app-branded`.
    var stylesheet: String {
        """
        body.app-branded { --accent: \(accent); --accent-hover: \(accentHover); --accent-text: \(accentText); \
        --link: \(linkLight); --focus: \(linkLight); }
        @media (prefers-color-scheme: dark) { body.app-branded { --link: \(linkDark); --focus: \(linkDark); } }

        """
    }

    /// An sRGB colour with components in 0…1.
    struct RGB: Equatable {
        var red, green, blue: Double

        init(red: Double, green: Double, blue: Double) {
            self.red = red
            self.green = green
            self.blue = blue
        }

        init?(hex: String) {
            guard hex.count == 7, hex.first == "#", let value = UInt32(hex.dropFirst(), radix: 16) else { return nil }
            red = Double((value >> 16) & 0xff) / 255
            green = Double((value >> 8) & 0xff) / 255
            blue = Double(value & 0xff) / 255
        }

        var hex: String {
            let parts = [red, green, blue].map { Int(($0 * 255).rounded()) }
            return "#" + parts.map { String(format: "%02x", $0) }.joined()
        }

        /// The colour as `#rrggbb` gives it back.
        var rounded: RGB { RGB(hex: hex) ?? self }

        /// WCAG 2.2 relative luminance.
        var luminance: Double {
            func linear(_ c: Double) -> Double { c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4) }
            return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
        }

        /// WCAG 2.2 contrast ratio, 1…21.
        func contrast(with other: RGB) -> Double {
            let (a, b) = (luminance, other.luminance)
            return (max(a, b) + 0.05) / (min(a, b) + 0.05)
        }

        func mixed(with other: RGB, amount: Double) -> RGB {
            RGB(
                red: red + (other.red - red) * amount, green: green + (other.green - green) * amount,
                blue: blue + (other.blue - blue) * amount)
        }

        /// This colour, moved toward `target` in small steps until it reads on `background`.
        func readable(on background: RGB, toward target: RGB) -> RGB {
            var step = 0.0
            var color = self
            // Checked as written out (`hex` rounds), so the stylesheet's colour is the one that passes.
            while color.rounded.contrast(with: background) < AppTheme.minimumContrast, step < 1 {
                step += 0.05
                color = mixed(with: target, amount: min(step, 1))
            }
            return color.rounded
        }
    }
}
