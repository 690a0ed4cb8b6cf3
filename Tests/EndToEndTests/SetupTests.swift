import Foundation
import SatchelTestSupport
import XCTest

/// What `make demo` and `make test` install, and an install that meets a busy dpkg lock.
final class SetupTests: XCTestCase {
    /// `make demo` installs what building and running needs, not the tests' servers and card
    /// stack; `make test` installs those too.
    func testDemoInstallsOnlyWhatItNeeds() throws {
        let build = try Shell.run("scripts/install-deps.sh --list")
        XCTAssertEqual(build.status, 0, build.stderr)
        // python3: make install's bash completion for the tools with a default subcommand.
        XCTAssertEqual(
            build.lines,
            [
                "pkg-config", "python3", "libsecp256k1-dev", "libsodium-dev", "libzstd-dev", "libpcsclite-dev",
                "libqrencode-dev", "libsqlite3-dev", "libssl-dev", "libb2-dev", "zlib1g-dev", "libleveldb-dev",
            ])
        let test = try Shell.run("scripts/install-deps.sh --list --test")
        XCTAssertEqual(test.status, 0, test.stderr)
        XCTAssertEqual(Array(test.lines.prefix(build.lines.count)), build.lines)
        for package in ["monero", "pcscd", "vsmartcard-vpcd", "python3-grpcio", "mandoc", "zbar-tools"] {
            XCTAssertTrue(test.lines.contains(package), package)
        }
        // What the two make targets run, read from make itself.
        let demo = try Shell.run("make -n demo")
        XCTAssertEqual(demo.status, 0, demo.stderr)
        XCTAssertTrue(demo.lines.contains("scripts/install-deps.sh"), demo.out)
        XCTAssertFalse(demo.out.contains("--test"), demo.out)
        let tests = try Shell.run("make -n test")
        XCTAssertTrue(tests.lines.contains("scripts/install-deps.sh --test"), tests.out)
    }

    /// Another apt holding dpkg's lock (unattended-upgrades) is waited for, not a failure.
    /// Installs and removes Debian's small `tree` package for real (root and Debian's mirror, as
    /// `make test` has them).
    func testAnInstallWaitsForABusyDpkgLock() throws {
        guard getuid() == 0 else { throw XCTSkip("needs root, as make test's install step does") }
        let installed = try Shell.run("dpkg-query -W -f='${Status}' tree 2>/dev/null")
        if installed.out.contains("install ok installed") {
            XCTAssertEqual(try Shell.run("DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=120 remove -y -qq tree").status, 0)
        }
        addTeardownBlock { _ = try? Shell.run("DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=120 remove -y -qq tree") }
        let script = #"""
            /usr/bin/python3 -c '
            import fcntl, subprocess, time
            f = open("/var/lib/dpkg/lock-frontend", "w")
            fcntl.lockf(f, fcntl.LOCK_EX)
            print("locked", flush=True)
            end = time.time() + 90
            # Held until apt-get install is running and has met the lock, then 3 s more.
            while time.time() < end and subprocess.run(["pgrep", "-f", "^apt-get .* install .*tree"], capture_output=True).returncode != 0:
                time.sleep(0.2)
            time.sleep(3)
            print("contended", flush=True)
            ' > lock.out &
            holder=$!
            for i in $(seq 100); do grep -q locked lock.out 2>/dev/null && break; sleep 0.1; done
            DPKG_LOCK_TIMEOUT=300 scripts/install-deps.sh tree > /dev/null 2> deps.err
            rc=$?
            wait $holder
            echo "rc=$rc"
            tail -1 lock.out
            dpkg-query -W -f='${Status}\n' tree
            """#
        let dir = URL(fileURLWithPath: try temporaryDirectory("lock"))
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let r = try Shell.run("cd \(dir.path) && ln -s \(TestPaths.packageRoot.path)/scripts scripts || exit 1\n" + script)
        XCTAssertEqual(
            r.lines, ["rc=0", "contended", "install ok installed"],
            r.stderr + ((try? String(contentsOf: dir.appendingPathComponent("deps.err"), encoding: .utf8)) ?? ""))
    }
}
