//! Test-only points of a transaction where a test can stop the process (to
//! kill it there) or make the step fail, chosen by the environment variable
//! [`HOOK_VAR`]: `stop:N` prints `mshconv test hook: stopped at point N (WHAT)`
//! on stderr and waits for ever at the N-th point (counted from 1 in the
//! process); `pause:N` prints the same and waits for a line on stdin;
//! `fail:N` makes the N-th point fail as a full disk would. `pause:check`
//! pauses instead before each check of a file made outside its folder's lock
//! ([`super::check_replaceable_unlocked`]; not a counted point). Unset
//! (always, outside the tests), a point does nothing. docs/ROBUSTNESS.md lists
//! the points.

use std::io::{self, Write};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// The environment variable of the test hook (test-only).
pub const HOOK_VAR: &str = "MSHCONV_TEST_TXN";

/// What the hook asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Stop(u32),
    Pause(u32),
    Fail(u32),
    PauseAtCheck,
}

fn action() -> Option<Action> {
    static ACTION: OnceLock<Option<Action>> = OnceLock::new();
    *ACTION.get_or_init(|| {
        let text = std::env::var(HOOK_VAR).ok()?;
        let (what, n) = text.split_once(':')?;
        if (what, n) == ("pause", "check") {
            return Some(Action::PauseAtCheck);
        }
        let n = n.parse().ok()?;
        match what {
            "stop" => Some(Action::Stop(n)),
            "pause" => Some(Action::Pause(n)),
            "fail" => Some(Action::Fail(n)),
            _ => None,
        }
    })
}

/// Before a check of `file` made outside its folder's lock: with
/// `pause:check`, says so on stderr and waits for a line on stdin.
pub(super) fn check_point(file: &std::path::Path) {
    if action() == Some(Action::PauseAtCheck) {
        pause(&format!("stopped at the check of {}", file.display()));
    }
}

/// Says `what` on stderr and waits for a line on stdin.
fn pause(what: &str) {
    let _ = writeln!(io::stderr().lock(), "mshconv test hook: {what}");
    let mut line = String::new();
    let _ = io::stdin().read_line(&mut line);
}

/// One point of a transaction, `what` happened just before it (`temp
/// Material.lib`). Returns the injected failure when the hook asks for one here.
pub(super) fn point(what: &str) -> io::Result<()> {
    static COUNT: AtomicU32 = AtomicU32::new(0);
    let Some(action) = action() else {
        return Ok(());
    };
    let n = COUNT.fetch_add(1, Ordering::SeqCst) + 1;
    match action {
        Action::Stop(at) if at == n => {
            let _ = writeln!(
                io::stderr().lock(),
                "mshconv test hook: stopped at point {n} ({what})"
            );
            loop {
                std::thread::sleep(std::time::Duration::from_secs(3600));
            }
        }
        Action::Pause(at) if at == n => {
            pause(&format!("stopped at point {n} ({what})"));
            Ok(())
        }
        Action::Fail(at) if at == n => Err(io::Error::new(
            io::ErrorKind::StorageFull,
            format!("no space left on device (injected by {HOOK_VAR} at point {n}, {what})"),
        )),
        _ => Ok(()),
    }
}
