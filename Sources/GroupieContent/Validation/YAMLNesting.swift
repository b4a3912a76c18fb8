import CYaml

/// How deep a YAML text nests, measured from libyaml's own events (the parser Yams composes
/// with) before any tree is built. Yams composes nested collections recursively, so a text of
/// thousands of levels (`- - - … x`, or `[` hidden among quoted brackets) would use up the
/// thread's stack and end the process; libyaml's parser keeps its own stack on the heap and
/// reads any depth. Every sequence and mapping start counts, in flow or block style.
enum YAMLNesting {
    /// How deep lists and mappings may nest: mission files need five or six levels.
    static let limit = 64

    /// Where `text` first nests deeper than `limit` (1-based line and column), or nil when it
    /// does not. A text libyaml cannot parse is nil too, when its error comes before it nests
    /// too deep: composing it then fails at the same place, as shallow, with the parser's words.
    static func tooDeep(_ text: String, limit: Int = YAMLNesting.limit) -> (line: Int, column: Int)? {
        // An empty text nests nothing (and libyaml takes no input without bytes).
        guard !text.isEmpty else { return nil }
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBufferPointer { buffer -> (line: Int, column: Int)? in
            var parser = yaml_parser_t()
            guard yaml_parser_initialize(&parser) == 1 else { return (1, 1) }
            defer { yaml_parser_delete(&parser) }
            yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var depth = 0
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else { return nil }
                defer { yaml_event_delete(&event) }
                switch event.type {
                case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                    depth += 1
                    if depth > limit { return (Int(event.start_mark.line) + 1, Int(event.start_mark.column) + 1) }
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                    depth -= 1
                case YAML_STREAM_END_EVENT:
                    return nil
                default:
                    continue
                }
            }
        }
    }
}
