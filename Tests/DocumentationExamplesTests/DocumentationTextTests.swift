import Foundation
import OTLPInstrumentation
import OTLPTelemetry
import OTLPTestSupport
import Testing

/// The Swift examples of README.md, of the DocC catalogs (`Sources/<Module>/<Module>.docc/*.md`) and of the doc comments
/// of Sources/ are the code of Tests/DocumentationExamples, word for word: each ```swift block starts with `// Compiled copy: PATH`, its `import`
/// lines are exactly the imports of PATH, and the rest of it is a run of PATH's lines. Every example file is shown
/// somewhere, with every declaration in it; every ```json block is a configuration that loads without a warning.
@Suite("The documentation's examples match their compiled copies")
struct DocumentationTextTests {
    static let repository = OTLPProcess.repository
    static let marker = "// Compiled copy: "
    static let examplesFolder = "Tests/DocumentationExamples/"

    /// A fenced code block of a document.
    struct CodeBlock: CustomStringConvertible {
        var document: String
        var line: Int
        var language: String
        var lines: [String]
        var description: String { "\(document):\(line)" }
    }

    /// README.md, every article and landing page of the DocC catalogs, and every Swift source of Sources/ (whose doc
    /// comments are documentation too).
    static var documents: [String] {
        var paths = ["README.md"]
        let sources = repository.appendingPathComponent("Sources")
        for module in (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? [] {
            let catalog = sources.appendingPathComponent(module).appendingPathComponent("\(module).docc")
            for name in (try? FileManager.default.contentsOfDirectory(atPath: catalog.path)) ?? [] where name.hasSuffix(".md") {
                paths.append("Sources/\(module)/\(module).docc/\(name)")
            }
        }
        let files = FileManager.default.enumerator(atPath: sources.path)?.allObjects as? [String] ?? []
        paths += files.filter { $0.hasSuffix(".swift") }.map { "Sources/\($0)" }
        return paths.sorted()
    }

    static func text(_ path: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8)
    }

    /// The documentation text of `document`, line for line: a Markdown file as it is; of a Swift source, the text of
    /// each doc comment line (what follows `/// `), and an empty line for every other line.
    static func documentationText(_ document: String) throws -> String {
        let text = try text(document)
        guard document.hasSuffix(".swift") else { return text }
        return text.components(separatedBy: "\n").map { line in
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("///") else { return "" }
            let comment = trimmed.dropFirst(3)
            return String(comment.hasPrefix(" ") ? comment.dropFirst() : comment)
        }.joined(separator: "\n")
    }

    /// The fenced blocks of `document`, their lines without the fence's indentation.
    static func codeBlocks(in document: String) throws -> [CodeBlock] {
        var blocks: [CodeBlock] = []
        var open: (block: CodeBlock, indent: Int)?
        for (index, line) in try documentationText(document).components(separatedBy: "\n").enumerated() {
            let trimmed = line.drop { $0 == " " }
            let indent = line.count - trimmed.count
            if var current = open {
                if trimmed.hasPrefix("```") {
                    blocks.append(current.block)
                    open = nil
                } else {
                    current.block.lines.append(String(line.dropFirst(min(current.indent, line.prefix { $0 == " " }.count))))
                    open = current
                }
            } else if trimmed.hasPrefix("```") {
                let language = String(trimmed.dropFirst(3)).trimmingCharacters(in: .whitespaces)
                open = (CodeBlock(document: document, line: index + 1, language: language, lines: []), indent)
            }
        }
        return blocks
    }

    static var swiftBlocks: [CodeBlock] {
        get throws { try documents.flatMap { try codeBlocks(in: $0) }.filter { $0.language == "swift" } }
    }

    static func imports(of lines: [String]) -> Set<String> {
        Set(lines.filter { $0.hasPrefix("import ") })
    }

    /// `lines` without leading and trailing blank lines.
    static func trimmed(_ lines: [String]) -> [String] {
        var lines = lines
        while lines.first?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeFirst() }
        while lines.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeLast() }
        return lines
    }

    /// Whether `part` is a run of consecutive lines of `whole`.
    static func contains(_ whole: [String], run part: [String]) -> Bool {
        guard !part.isEmpty, part.count <= whole.count else { return part.isEmpty }
        return (0...(whole.count - part.count)).contains { start in Array(whole[start..<start + part.count]) == part }
    }

    @Test("every Swift example names its compiled copy, shows its imports exactly, and is a run of its lines")
    func swiftExamplesMatch() throws {
        let blocks = try Self.swiftBlocks
        #expect(blocks.count >= 20, "found only \(blocks.count) Swift examples")
        for block in blocks {
            guard let first = block.lines.first, first.hasPrefix(Self.marker) else {
                Issue.record("\(block): a Swift example must start with `\(Self.marker)Tests/DocumentationExamples/…`")
                continue
            }
            let path = String(first.dropFirst(Self.marker.count)).trimmingCharacters(in: .whitespaces)
            #expect(path.hasPrefix(Self.examplesFolder), "\(block): \(path) is not under \(Self.examplesFolder)")
            guard let file = try? Self.text(path) else {
                Issue.record("\(block): \(path) does not exist")
                continue
            }
            let fileLines = file.components(separatedBy: "\n")
            let body = Array(block.lines.dropFirst())
            let shownImports = Self.imports(of: body)
            if !shownImports.isEmpty {
                #expect(
                    shownImports == Self.imports(of: fileLines),
                    "\(block): the example imports \(shownImports.sorted()), \(path) imports \(Self.imports(of: fileLines).sorted())")
            }
            let code = Self.trimmed(body.filter { !$0.hasPrefix("import ") })
            #expect(!code.isEmpty, "\(block): no code")
            #expect(Self.contains(fileLines, run: code), "\(block): the text differs from \(path) (copy the code from there)")
        }
    }

    @Test("every example file is shown in the documentation, every declaration in it included")
    func everyExampleFileIsShown() throws {
        let blocks = try Self.swiftBlocks
        let folder = Self.repository.appendingPathComponent(Self.examplesFolder)
        let files = (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".swift") && $0 != "Main.swift" }.sorted()
        #expect(files.count >= 20)
        for file in files {
            let path = Self.examplesFolder + file
            let shown = blocks.filter { $0.lines.first == Self.marker + path }
            guard !shown.isEmpty else {
                Issue.record("\(path) is not shown in any document")
                continue
            }
            let shownLines = Set(shown.flatMap(\.lines))
            let declarations = try Self.text(path).components(separatedBy: "\n").filter { line in
                ["func ", "struct ", "final class ", "class ", "enum ", "extension ", "let ", "var "].contains { line.hasPrefix($0) }
            }
            for declaration in declarations {
                #expect(shownLines.contains(declaration), "\(path): `\(declaration)` is not shown in the documentation")
            }
        }
    }

    @Test("every JSON example is a configuration that loads without a warning")
    func jsonExamplesLoad() throws {
        // The JSON of doc comments shows parts of a configuration (one section, the app's keys beside the pipeline's).
        let articles = Self.documents.filter { !$0.hasSuffix(".swift") }
        let blocks = try articles.flatMap { try Self.codeBlocks(in: $0) }.filter { $0.language == "json" }
        #expect(blocks.count >= 5)
        for block in blocks {
            let json = Data(block.lines.joined(separator: "\n").utf8)
            do {
                if block.document.contains("OTLPInstrumentation.docc") {
                    let (_, warnings) = try OTLPAppConfiguration.load(json: json)
                    #expect(warnings.isEmpty, "\(block): \(warnings)")
                } else {
                    let (_, warnings) = try OTLPTelemetryConfiguration.load(json: json)
                    #expect(warnings.isEmpty, "\(block): \(warnings)")
                }
            } catch {
                Issue.record("\(block): \(error)")
            }
        }
    }
}
