import Foundation

// MARK: - Help

extension ServerOptions {
    /// The settings part of `groupie serve --help`, laid out like argument parser's own options.
    public static var help: String {
        var lines = [
            "Each setting comes from the command line, else from its GROUPIE_* environment",
            "variable, else from the JSON file named by --config, else from its default.",
            "",
            "SETTINGS:",
        ]
        for option in [configFile] + all {
            let label = "  \(option.flag)" + (option.valueName.isEmpty ? "" : " <\(option.valueName)>")
            let also = option.key == configFile.key
                ? "Or \(option.variable)."
                : "Or \(option.variable), or \"\(option.key)\" in the file."
            let text = wrap("\(option.help) Default \(option.defaultText). \(also)", width: 79 - labelWidth)
            lines.append(label.count < labelWidth - 1 ? label.padding(toLength: labelWidth, withPad: " ", startingAt: 0) + text[0] : label)
            for line in text.dropFirst(label.count < labelWidth - 1 ? 1 : 0) {
                lines.append(String(repeating: " ", count: labelWidth) + line)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Argument parser's label column, so that the settings line up with `--help` below them.
    /// Lines stay under 80 columns: argument parser wraps the overview again at 80, a line of
    /// exactly 80 included.
    private static let labelWidth = 26

    private static func wrap(_ text: String, width: Int) -> [String] {
        var lines = [""]
        for word in text.split(separator: " ") {
            if !lines[lines.count - 1].isEmpty, lines[lines.count - 1].count + 1 + word.count > width {
                lines.append("")
            }
            lines[lines.count - 1] += (lines[lines.count - 1].isEmpty ? "" : " ") + word
        }
        return lines
    }
}
