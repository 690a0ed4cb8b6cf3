import Foundation

/// A person at a terminal: runs `command` (bash) on a pseudo-terminal, waits until it shows
/// `prompt`, types `answer` and Enter, and returns everything the terminal showed (echo
/// included: what a bystander could read) and the exit status. It types half a second after
/// the prompt shows, as a person does: a no-echo prompt sets the terminal with TCSAFLUSH,
/// which drops what was typed before. `then` lines follow, a second apart, and with
/// `endInput` a Control-D ends the input.
public enum Terminal {
    public static func run(
        _ command: String, waitFor prompt: String, type answer: String, then more: [String] = [], endInput: Bool = false
    ) throws -> (shown: String, status: Int32) {
        let script = """
            import os, pty, sys, time
            pid, fd = pty.fork()
            if pid == 0:
                os.execvp("bash", ["bash", "-c", os.environ["TERMINAL_COMMAND"]])
            seen = b""
            prompt = os.environ["TERMINAL_PROMPT"].encode()
            while prompt not in seen:
                chunk = os.read(fd, 4096)
                if not chunk:
                    break
                seen += chunk
            time.sleep(0.5)
            os.write(fd, os.environ["TERMINAL_ANSWER"].encode() + b"\\n")
            for line in [l for l in os.environ["TERMINAL_MORE"].split("\\n") if l]:
                time.sleep(1)  # after the tool has set the terminal back (TCSAFLUSH drops what came before)
                os.write(fd, line.encode() + b"\\n")
            if os.environ["TERMINAL_END"] == "1":
                time.sleep(0.5)
                os.write(fd, b"\\x04")
            while True:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                seen += chunk
            _, st = os.waitpid(pid, 0)
            sys.stderr.write(seen.decode(errors="replace"))
            sys.exit(os.waitstatus_to_exitcode(st))
            """
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-terminal-\(UUID().uuidString).py")
        try script.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let r = try Shell.run(
            "TERMINAL_COMMAND=\(quoted(command)) TERMINAL_PROMPT=\(quoted(prompt)) TERMINAL_ANSWER=\(quoted(answer)) "
                + "TERMINAL_MORE=\(quoted(more.joined(separator: "\n"))) TERMINAL_END=\(endInput ? 1 : 0) timeout 60 python3 \(file.path)"
        )
        return (r.stderr, r.status)
    }
}
