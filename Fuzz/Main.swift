// satchel-fuzz: every parser's fuzz target in one executable (one build, one link).
//
//   satchel-fuzz --list                       the targets, one a line
//   satchel-fuzz TARGET FILE|DIR…             replay inputs (any build; a regression run)
//   satchel-fuzz TARGET [libFuzzer flags] DIR  fuzz (the build of `make fuzz`, -DFUZZING)
//
// The fuzzing build compiles everything with -sanitize=fuzzer,address. libFuzzer brings its own
// main, but SwiftPM links an executable with main = this module's entry point; so this main
// hands the arguments to libFuzzer's driver, the target's name among them as --target=NAME.
#if canImport(Glibc)
    import Glibc
#endif
import WalletCore
import WalletFiles

#if FUZZING
    @_silgen_name("LLVMFuzzerRunDriver")
    func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    /// libFuzzer's archive holds a main that calls this; the link needs it even though that main
    /// is not the one that runs.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        runSelected(data, size)
    }
#endif

/// The target chosen on the command line; set once, before the first input.
nonisolated(unsafe) var selected: FuzzTarget?

func runSelected(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    selected!.run(bytes)
    return 0
}

@main
enum SatchelFuzz {
    static func main() {
        let arguments = CommandLine.arguments
        if arguments.count == 2, arguments[1] == "--list" {
            for target in FuzzTargets.all { print(target.name) }
            exit(0)
        }
        // The target travels as --target=NAME: libFuzzer passes on arguments that start with
        // "--" untouched, and re-executes itself with them (-merge=1, -fork), so a child knows
        // its target too.
        let named = arguments.dropFirst().first { $0.hasPrefix("--target=") }.map { String($0.dropFirst("--target=".count)) }
        let passed =
            named != nil ? arguments : [arguments[0], "--target=" + (arguments.count > 1 ? arguments[1] : "")] + arguments.dropFirst(2)
        let name = named ?? (arguments.count > 1 ? arguments[1] : "")
        guard passed.count >= 3, let target = FuzzTargets.all.first(where: { $0.name == name }) else {
            let names = FuzzTargets.all.map(\.name).joined(separator: " ")
            complain("usage: satchel-fuzz --list | TARGET FILE|DIR… | TARGET [libFuzzer flags] CORPUS…\ntargets: \(names)\n")
            exit(64)
        }
        selected = target
        #if FUZZING
            var argv: [UnsafeMutablePointer<CChar>?] = passed.map { strdup($0) }
            argv.append(nil)
            var argc = CInt(passed.count)
            let status = argv.withUnsafeMutableBufferPointer { buffer in
                var pointer = buffer.baseAddress!
                return LLVMFuzzerRunDriver(&argc, &pointer) { runSelected($0, $1) }
            }
            exit(status)
        #else
            var count = 0
            for path in passed.dropFirst() where !path.hasPrefix("-") {
                for file in inputFiles(path) {
                    guard let bytes = readFile(file) else {
                        complain("satchel-fuzz: cannot read \(file)\n")
                        exit(66)
                    }
                    target.run(bytes)
                    count += 1
                }
            }
            print("\(target.name): \(count) inputs replayed, no invariant broken")
        #endif
    }

    static func complain(_ message: String) {
        var bytes = Array(message.utf8)
        _ = write(2, &bytes, bytes.count)
    }

    /// A file, or a directory's regular files in name order (a corpus).
    static func inputFiles(_ path: String) -> [String] {
        guard let names = AtomicFile.names(in: path) else { return [path] }
        return names.filter { !$0.hasPrefix(".") }.map { path + "/" + $0 }.sorted()
    }

    static func readFile(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var out = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n == 0 { break }
            out += chunk[0..<n]
        }
        return ferror(file) == 0 ? out : nil
    }
}
