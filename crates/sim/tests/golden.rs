//! Golden summaries: every example scenario, the peer cases (a)–(c) in short
//! form and one quick cell of each study, run and compared with an insta
//! snapshot (`tests/snapshots/golden__NAME.snap`).
//!
//! The inputs in `tests/golden/` are engine JSON written by
//! `python -m ecnlab.bench.golden` (Python's `tests/test_golden.py` checks
//! they are what today's lowering produces). A snapshot holds the run's
//! summary one record per line, with the time series, the sojourn histograms and any pcap files as
//! a length and an FNV-1a digest. A commit that moves a snapshot says which
//! change moved it and why; `cargo insta review` (or `INSTA_UPDATE=always`)
//! accepts the new ones.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

const PCAP_PLACEHOLDER: &str = "@PCAP_DIR@";

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("golden")
}

/// FNV-1a, 64 bit: a stable digest that needs no dependency.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

/// The summary as text: `key: value` for objects, one line per list element.
fn render(summary: &Value, pcaps: &[(String, Vec<u8>)]) -> String {
    let mut out = String::new();
    let Value::Object(top) = summary else { panic!("summary is not an object") };
    for (key, value) in top {
        match (key.as_str(), value) {
            (series @ ("timeseries" | "sojourn_histograms"), v) => {
                let text = v.to_string();
                writeln!(out, "{series}: {} bytes, fnv1a {:016x}", text.len(), fnv1a(text.as_bytes())).unwrap();
            }
            (_, Value::Array(items)) => {
                writeln!(out, "{key}:").unwrap();
                for item in items {
                    writeln!(out, "  {item}").unwrap();
                }
            }
            (_, v) => writeln!(out, "{key}: {v}").unwrap(),
        }
    }
    for (name, bytes) in pcaps {
        writeln!(out, "pcap {name}: {} bytes, fnv1a {:016x}", bytes.len(), fnv1a(bytes)).unwrap();
    }
    out
}

fn run_case(path: &Path) -> String {
    let name = path.file_stem().unwrap().to_string_lossy().into_owned();
    let mut spec = std::fs::read_to_string(path).expect("read golden input");
    let pcap_dir = std::env::temp_dir().join(format!("ecnlab-golden-{}-{name}", std::process::id()));
    if spec.contains(PCAP_PLACEHOLDER) {
        std::fs::create_dir_all(&pcap_dir).unwrap();
        spec = spec.replace(PCAP_PLACEHOLDER, pcap_dir.to_str().unwrap());
    }
    let out = ecnlab_sim::run_json(&spec).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut pcaps = Vec::new();
    if pcap_dir.is_dir() {
        let mut files: Vec<_> = std::fs::read_dir(&pcap_dir).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for f in files {
            pcaps.push((f.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&f).unwrap()));
        }
        std::fs::remove_dir_all(&pcap_dir).unwrap();
    }
    render(&serde_json::from_str(&out).unwrap(), &pcaps)
}

#[test]
fn test_golden_summaries() {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .expect("tests/golden (python -m ecnlab.bench.golden writes it)")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 20, "only {} golden inputs", cases.len());
    let mut failed = Vec::new();
    for path in &cases {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = run_case(path);
        let checked = std::panic::catch_unwind(|| insta::assert_snapshot!(name.clone(), text));
        if checked.is_err() {
            failed.push(name);
        }
    }
    assert!(failed.is_empty(), "golden summaries moved: {failed:?}");
}
