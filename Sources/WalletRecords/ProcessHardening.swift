import CProcess

/// What every tool does first, before it reads a secret.
public enum ProcessHardening {
    /// No core file: a crash would write the process's memory, phrases and keys included, to
    /// disk. Also makes the process undumpable (no ptrace attach by the same user).
    public static func disableCoreDumps() {
        if satchel_disable_core_dumps() != 0 {
            // Not fatal: the tool still works; say so once, without any secret.
            try? OutputStream.standardError.write("warning: could not disable core dumps\n")
        }
    }
}
