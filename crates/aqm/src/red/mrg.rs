//! ns-2.35's default random number generator, for the `ns2` RED personality's
//! optional `ns2_rng_skip` (docs/ns2-ecn-suite.md).
//!
//! ns-2.35 (`tools/rng.{h,cc}`, read, not copied) uses L'Ecuyer's MRG32k3a
//! combined multiple recursive generator (L'Ecuyer 1999, "Good parameters and
//! implementations for combined multiple recursive random number generators",
//! Operations Research 47(1)), as in the RngStreams package, without antithetic
//! or increased-precision draws. `ns-random.tcl` seeds the default generator
//! with 1, which sets all six state words to 1. Every ns-2 object that calls
//! `Random::uniform()` draws from this one stream in event order: each TCP
//! agent once when it is created and once when `$ns run` resets it (its
//! `boot_time_`), RED once per `drop_early` call. A RED queue that is the only
//! other user therefore sees the stream after 2 draws per TCP agent.
//!
//! | constant | value |
//! |---|---|
//! | m1, m2 | 2³² − 209 = 4294967087, 2³² − 22853 = 4294944443 |
//! | component 1 | x_n = (1403580·x_{n−2} − 810728·x_{n−3}) mod m1 |
//! | component 2 | y_n = (527612·y_{n−1} − 1370589·y_{n−3}) mod m2 |
//! | output | (x_n − y_n) mod m1, times 1/(m1 + 1); 1 when x_n = y_n is read as (m1)/(m1+1) |

const M1: i64 = 4_294_967_087;
const M2: i64 = 4_294_944_443;
const A12: i64 = 1_403_580;
const A13N: i64 = 810_728;
const A21: i64 = 527_612;
const A23N: i64 = 1_370_589;
const NORM: f64 = 1.0 / (M1 + 1) as f64;

/// MRG32k3a state: (x_{n−3}, x_{n−2}, x_{n−1}, y_{n−3}, y_{n−2}, y_{n−1}).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Mrg32k3a {
    s: [i64; 6],
}

impl Mrg32k3a {
    /// ns-2's default generator after `$defaultRNG seed 1` and `skip` draws.
    pub(crate) fn ns2_default(skip: u64) -> Self {
        let mut g = Mrg32k3a { s: [1; 6] };
        for _ in 0..skip {
            g.u01();
        }
        g
    }

    /// The next uniform draw in (0, 1) (ns-2 `RNG::uniform()`, `U01`).
    pub(crate) fn u01(&mut self) -> f64 {
        let s = &mut self.s;
        let p1 = (A12 * s[1] - A13N * s[0]).rem_euclid(M1);
        s[0] = s[1];
        s[1] = s[2];
        s[2] = p1;
        let p2 = (A21 * s[5] - A23N * s[3]).rem_euclid(M2);
        s[3] = s[4];
        s[4] = s[5];
        s[5] = p2;
        let d = if p1 > p2 { p1 - p2 } else { p1 - p2 + M1 };
        d as f64 * NORM
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first four draws after `seed 1`, as docs/ns2-tcp-semantics.md §10
    /// records them from the Debian `ns` 2.35 binary, and its state after one
    /// draw (`$defaultRNG all-seeds`: 1 1 592852 1 1 4294101466).
    #[test]
    fn test_matches_ns2_seed_1() {
        let mut g = Mrg32k3a::ns2_default(0);
        let want = [0.000339577223787, 0.555880715982800, 0.0142046606528, 0.0881226713139];
        let first = g.u01();
        assert_eq!(g.s, [1, 1, 592_852, 1, 1, 4_294_101_466]);
        let got = [first, g.u01(), g.u01(), g.u01()];
        for (a, b) in got.iter().zip(want) {
            assert!((a - b).abs() < 1e-12, "{got:?}");
        }
        let mut skipped = Mrg32k3a::ns2_default(2);
        assert!((skipped.u01() - want[2]).abs() < 1e-12);
    }
}
