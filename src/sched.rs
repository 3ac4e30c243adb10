//! Threads that work beside the one that starts them.
//!
//! The hook's helper threads (the lint's warm-up, the lint, its obfuscation decoders) exist
//! so that their work overlaps the starting thread's. Linux often places a new thread on its
//! parent's CPU, where it preempts the parent, while another CPU idles: measured on the
//! project's two-core machine kind, the warm-up thread held the main thread off its CPU for
//! about a millisecond of a 7–8 ms hook in most runs, and the threads ran at 1.0 CPUs
//! utilised. A thread started here moves off its parent's CPU first when another CPU is
//! allowed, then lets the scheduler place it anywhere again: a nudge, never a pin.

use std::io;
use std::thread::{Builder, JoinHandle, Scope, ScopedJoinHandle};

/// Starts `f` on a thread named `name` (see the module's description).
pub(crate) fn spawn_beside<T, F>(name: &str, f: F) -> io::Result<JoinHandle<T>>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let parent = current_cpu();
    let thread = Builder::new().name(name.into()).spawn(move || {
        leave_cpu(parent);
        f()
    })?;
    let_it_leave(parent);
    Ok(thread)
}

/// Starts `f` on a scoped thread named `name` (see the module's description).
pub(crate) fn spawn_scoped_beside<'scope, T, F>(
    scope: &'scope Scope<'scope, '_>,
    name: &str,
    f: F,
) -> io::Result<ScopedJoinHandle<'scope, T>>
where
    F: FnOnce() -> T + Send + 'scope,
    T: Send + 'scope,
{
    let parent = current_cpu();
    let thread = Builder::new()
        .name(name.into())
        .spawn_scoped(scope, move || {
            leave_cpu(parent);
            f()
        })?;
    let_it_leave(parent);
    Ok(thread)
}

/// Lets a thread just started on this CPU run at once, so that it moves off (see
/// [`leave_cpu`]): left queued, it waits for this thread to block or for the scheduler's
/// next balancing, up to a tick (4 ms at 250 Hz) while another CPU idles. When it was
/// placed elsewhere, nothing else waits here and the yield returns at once.
fn let_it_leave(parent: Option<usize>) {
    if parent.is_some() {
        std::thread::yield_now();
    }
}

/// The CPU the calling thread runs on, where the platform tells: field 39 of
/// `/proc/thread-self/stat` (`None` when it cannot be read, or for a number no CPU set can
/// hold). Not `sched_getcpu`: rustix answers it from the vDSO, whose parsing crashes under
/// valgrind (rustix issue 1559) and so would every profile and instruction count of the
/// hook.
#[cfg_attr(not(target_os = "linux"), allow(clippy::unnecessary_wraps))]
fn current_cpu() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        let stat = std::fs::read("/proc/thread-self/stat").ok()?;
        let cpu = usize::try_from(crate::procfs::stat_field(&stat, 39)?).ok()?;
        (cpu < rustix::thread::CpuSet::MAX_CPU).then_some(cpu)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Moves the calling thread off `parent`'s CPU when it runs there (see [`move_off`]).
fn leave_cpu(parent: Option<usize>) {
    if let Some(parent) = parent
        && current_cpu() == Some(parent)
    {
        move_off(parent);
    }
}

/// Moves the calling thread off `cpu` when it may run elsewhere, then allows it every CPU it
/// was allowed before. Failing leaves it where it is.
fn move_off(cpu: usize) {
    #[cfg(target_os = "linux")]
    {
        use rustix::thread::{sched_getaffinity, sched_setaffinity};
        let Ok(allowed) = sched_getaffinity(None) else {
            return;
        };
        if allowed.count() < 2 || !allowed.is_set(cpu) {
            return;
        }
        let mut elsewhere = allowed;
        elsewhere.unset(cpu);
        // Setting the mask moves the thread at once; restoring it lets the scheduler move it
        // back whenever it balances.
        if sched_setaffinity(None, &elsewhere).is_ok() {
            let _ = sched_setaffinity(None, &allowed);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cpu;
}

/// [`parallel`]'s answer, once asked.
static PARALLEL: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

/// Whether [`parallel`] has been answered already (tests).
#[cfg(test)]
pub(crate) fn parallel_answered() -> bool {
    PARALLEL.get().is_some()
}

/// Whether more than one CPU is available to this process (affinity and CPU quota), read
/// once: with one, a thread beside adds its start and switches and runs nothing in parallel.
pub(crate) fn parallel() -> bool {
    *PARALLEL.get_or_init(|| std::thread::available_parallelism().is_ok_and(|n| n.get() > 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thread started beside its parent does its work and hands its result back, scoped
    /// or not.
    #[test]
    fn a_thread_beside_runs_its_work() {
        let thread = spawn_beside("beside-test", || 6 * 7).expect("a thread starts");
        assert_eq!(thread.join().expect("no panic"), 42);
        let words = ["borrowed", "from", "the", "scope"];
        let joined = std::thread::scope(|s| {
            let t = spawn_scoped_beside(s, "beside-test", || words.join(" ")).expect("starts");
            t.join().expect("no panic")
        });
        assert_eq!(joined, "borrowed from the scope");
    }

    /// This process's own stat names a CPU the thread may run on.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_current_cpu_is_one_the_thread_may_run_on() {
        let cpu = current_cpu().expect("a CPU number from /proc");
        let set = rustix::thread::sched_getaffinity(None).expect("affinity");
        assert!(
            set.is_set(cpu),
            "CPU {cpu} is not in the thread's affinity set"
        );
    }

    /// Moving off a CPU is a nudge, not a pin: afterwards the thread may run on every CPU
    /// it could before (on a machine with one allowed CPU there is nothing to move and the
    /// mask is untouched).
    #[cfg(target_os = "linux")]
    #[test]
    fn moving_off_a_cpu_keeps_every_cpu() {
        fn allowed() -> Vec<usize> {
            let set = rustix::thread::sched_getaffinity(None).expect("affinity");
            (0..rustix::thread::CpuSet::MAX_CPU)
                .filter(|&c| set.is_set(c))
                .collect()
        }
        let (before, after) = std::thread::spawn(|| {
            let before = allowed();
            move_off(current_cpu().expect("a CPU number"));
            (before, allowed())
        })
        .join()
        .expect("no panic");
        assert_eq!(after, before);
        let theirs = spawn_beside("beside-test", allowed)
            .expect("a thread starts")
            .join()
            .expect("no panic");
        assert_eq!(theirs, before);
    }
}
