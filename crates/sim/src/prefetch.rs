//! Software prefetch: a hint that asks the CPU to start loading the cache
//! lines of a value that a later event will touch, so that with many flows
//! (whose per-connection state is far larger than the caches) the load
//! overlaps other work instead of stalling the event that needs it.
//!
//! A prefetch changes no value the program sees: it reads nothing into a
//! register, cannot fault (a bad address is dropped by the CPU), and only
//! moves data between memory and the caches. On targets without an x86-64
//! prefetch instruction it is a no-op.
//!
//! This is the crate's only unsafe code (the crate's lints deny it elsewhere).
#![allow(unsafe_code)]

/// Cache-line size assumed for the hints (x86-64 and most others).
const LINE: usize = 64;

/// Prefetches every cache line of `*v` (into all cache levels).
#[inline(always)]
pub fn lines<T>(v: &T) {
    let p = (v as *const T).cast::<i8>();
    let skew = p as usize % LINE; // `*v` need not start on a line
    let first = p.wrapping_sub(skew);
    let mut off = 0;
    while off < skew + std::mem::size_of::<T>() {
        line(first.wrapping_add(off));
        off += LINE;
    }
}

/// Prefetches the cache line holding `p`.
#[inline(always)]
fn line(p: *const i8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHT0 does not access memory architecturally: it never
    // faults, whatever `p` is, and has no effect visible to the program. SSE,
    // which it needs, is part of the x86-64 baseline, so the instruction
    // exists on every x86-64 CPU.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
