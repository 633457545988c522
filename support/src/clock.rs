//! One clock for every timestamp of a harness-role run: the kit's adapter
//! calls, its HTTP server and the scripted stdio backends (other processes)
//! all stamp events with [`now_ms`], so their order can be compared.

/// Milliseconds on the system's monotonic clock (`CLOCK_MONOTONIC` on
/// Linux: shared by every process of the machine, never set back).
#[cfg(target_os = "linux")]
pub fn now_ms() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    // A monotonic clock reading fits an f64 exactly to the microsecond for
    // centuries of uptime.
    t.tv_sec as f64 * 1000.0 + f64::from(u32::try_from(t.tv_nsec).unwrap_or(0)) / 1_000_000.0
}

/// Milliseconds since the Unix epoch (elsewhere: not monotonic, but shared
/// by the processes of one machine).
#[cfg(not(target_os = "linux"))]
pub fn now_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_clock_never_goes_back() {
        let a = super::now_ms();
        std::thread::sleep(std::time::Duration::from_millis(5));
        let b = super::now_ms();
        assert!(b >= a + 4.0, "{a} then {b}");
    }
}
