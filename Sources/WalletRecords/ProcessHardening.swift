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

    /// Large freed buffers stay in the process (a block scanner's, block after block): see
    /// `satchel_reuse_large_buffers`. Freed memory is not wiped by this; secrets are wiped
    /// where they are held, as before.
    public static func reuseLargeBuffers() { _ = satchel_reuse_large_buffers() }
}
