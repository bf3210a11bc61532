#if CommandLine
import ArgumentParser
import Foundation

/// A command whose inputs are a list as long as the user's shell makes it
/// (`imgcache rewrite www/*.html --out build`).
protocol TakesInputList: ParsableCommand {
    /// The files, folders or URLs the command was given, in order.
    var inputList: [String] { get set }
}

/// Reads a command line with many inputs in one pass.
///
/// ArgumentParser 1.8 copies a repeated argument's values, and the set of their positions, each
/// time it adds one, so the time to parse grows with the square of their number, all of it before
/// the first page is read (measured: Benchmarks/HISTORY.md, "Rewriting"). Here the inputs are set
/// aside and ArgumentParser parses the rest with the first input in their place; the command then
/// takes the whole list and is validated again with it. ArgumentParser's own description of the
/// command (the one `--experimental-dump-help` prints) says which options take a value, so the two
/// cannot drift apart. A command line this cannot read exactly as ArgumentParser would (`--`,
/// grouped short flags, an option it does not know, a value that starts with `-`, an option whose
/// values are not one at a time) is left to ArgumentParser whole, as is one with few inputs.
enum LongInputList {
    /// From this many inputs on, the list is set aside (below, ArgumentParser's cost is small).
    static let threshold = 200

    /// The arguments for ArgumentParser (the inputs reduced to the first) and the inputs.
    struct Split {
        var arguments: [String]
        var inputs: [String]
    }

    /// A command that takes a list, and the names that lead to it (`["cache", "remove"]`).
    struct Command {
        var path: [String]
        var type: any TakesInputList.Type
    }

    /// `arguments` (without the program's name) split for the command they name among
    /// `commands`, or nil to leave them to ArgumentParser as they are.
    static func split(_ arguments: [String], commands: [Command]) -> Split? {
        guard arguments.count > threshold,
              let command = commands.first(where: { arguments.starts(with: $0.path) }),
              let options = OptionTable(command.type) else { return nil }
        var kept = command.path
        var inputs: [String] = []
        var index = command.path.count
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("-"), argument != "-" else {
                if inputs.isEmpty { kept.append(argument) }
                inputs.append(argument)
                continue
            }
            // An option: its name up to any `=`, its value attached or the next argument.
            let equals = argument.firstIndex(of: "=")
            let spelled = String(argument[..<(equals ?? argument.endIndex)])
            guard let takesValue = options.takesValue[spelled] else { return nil }
            kept.append(argument)
            if takesValue, equals == nil {
                guard index < arguments.count else { return nil }
                let value = arguments[index]
                guard value == "-" || !value.hasPrefix("-") else { return nil }
                kept.append(value)
                index += 1
            } else if !takesValue, equals != nil {
                return nil
            }
        }
        guard inputs.count >= threshold else { return nil }
        return Split(arguments: kept, inputs: inputs)
    }

    /// The spellings of a command's options (`--out`, `-h`), and whether each takes a value.
    private struct OptionTable {
        var takesValue: [String: Bool] = [:]

        init?(_ command: any ParsableCommand.Type) {
            guard let description = try? JSONDecoder().decode(Description.self, from: Data(command._dumpHelp().utf8)) else {
                return nil
            }
            let positionals = description.command.arguments.filter { $0.kind == "positional" }
            // One list of inputs and nothing else positional: otherwise which argument is
            // which is not this reader's to say.
            guard positionals.count == 1, positionals[0].isRepeating else { return nil }
            for argument in description.command.arguments where argument.kind != "positional" {
                guard argument.parsingStrategy == "default" else { return nil }
                for name in argument.names ?? [] {
                    switch name.kind {
                    case "long": takesValue["--" + name.name] = argument.kind == "option"
                    case "short", "longWithSingleDash": takesValue["-" + name.name] = argument.kind == "option"
                    default: return nil
                    }
                }
            }
        }

        /// What is read of ArgumentParser's description of a command.
        private struct Description: Decodable {
            struct Command: Decodable {
                var arguments: [Argument]
            }
            struct Argument: Decodable {
                var kind: String
                var names: [Name]?
                var isRepeating: Bool
                var parsingStrategy: String
            }
            struct Name: Decodable {
                var kind: String
                var name: String
            }
            var command: Command
        }
    }
}
#endif
