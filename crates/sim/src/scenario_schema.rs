//! The scenario keys the engine accepts, as one JSON document (`_core.scenario_schema`).
//!
//! The rows live beside the structs they describe (`ecnlab_wire::keys::Key`): `TcpConfig`'s in
//! `crates/tcp/src/config.rs`, each congestion control's knobs in its `cc/<name>.rs`, each
//! queue kind's in `crates/aqm/src/config.rs`. Here they are joined with their defaults, read
//! off the engine's own values: a TCP key's from the `rfc` personality's `TcpConfig` (and
//! whether a personality sets it, from `PersonalityRules`), a queue key's from its `Params`'
//! `Default`; an application's defaults are the front's (`spec.rs`'s `APP_KINDS` says each).
//! The Python front parses, defaults and documents the keys from this document.
//!
//! ```text
//! {"tcp":   {"keys": [ROW…], "knobs": {"cubic": ["hystart", …], …}},
//!  "queue": {"kinds": [{"name", "doc", "keys": [ROW…]}…]},
//!  "app":   {"kinds": [{"name", "keys": [ROW…]}…]}}
//! ROW = {"key", "field" (null: the front turns it into other fields), "unit",
//!        "allowed" (null | {"lo", "hi" (null: none), "open_lo"} | {"values": […]}),
//!        "default" (null: none or not a value), "default_from" ("field" | "required" |
//!        "derived"), "derived" (how, when derived), "doc"; TCP rows also "personality"}
//! ```

use ecnlab_aqm::config::QUEUE_KINDS;
use ecnlab_tcp::{Personality, TcpConfig};
use ecnlab_wire::keys::{Allowed, DefaultFrom, Key};
use serde_json::{json, Map, Value};

/// The whole schema.
pub fn scenario_schema() -> Value {
    json!({ "tcp": tcp(), "queue": queue(), "app": app() })
}

fn tcp() -> Value {
    let defaults = object(&TcpConfig::default());
    let rules = object(Personality::Rfc.rules());
    let default_name = Value::from(Personality::default().name());
    let knob_rows = ecnlab_tcp::KNOB_KEYS.iter().flat_map(|(_, keys)| keys.iter());
    let keys: Vec<Value> = ecnlab_tcp::config::KEYS
        .iter()
        .chain(knob_rows)
        .map(|k| {
            let mut row = row(k, &defaults);
            if k.key == "personality" {
                row["default"] = default_name.clone();
            }
            row["personality"] = Value::Bool(k.field.is_some_and(|f| rules.contains_key(f)));
            row
        })
        .collect();
    let knobs: Map<String, Value> = ecnlab_tcp::KNOB_KEYS
        .iter()
        .map(|(cc, keys)| (cc.name().to_string(), keys.iter().map(|k| k.key).collect()))
        .collect();
    json!({ "keys": keys, "knobs": knobs })
}

fn queue() -> Value {
    let kinds: Vec<Value> = QUEUE_KINDS
        .iter()
        .map(|kind| {
            let defaults = object(&(kind.default)());
            let keys: Vec<Value> = kind.limits.iter().chain(kind.keys).map(|k| row(k, &defaults)).collect();
            json!({ "name": kind.name, "doc": kind.doc, "keys": keys })
        })
        .collect();
    json!({ "kinds": kinds })
}

fn app() -> Value {
    let none = Map::new();
    let kinds: Vec<Value> = crate::spec::APP_KINDS
        .iter()
        .map(|kind| json!({ "name": kind.name, "keys": kind.keys.iter().map(|k| row(k, &none)).collect::<Vec<_>>() }))
        .collect();
    json!({ "kinds": kinds })
}

/// One key's row, its default read from `defaults` (the struct's JSON).
fn row(k: &Key, defaults: &Map<String, Value>) -> Value {
    let (default, from, derived) = match k.default {
        DefaultFrom::Field => (k.field.and_then(|f| defaults.get(f)).cloned().unwrap_or(Value::Null), "field", None),
        DefaultFrom::Required => (Value::Null, "required", None),
        DefaultFrom::Derived(how) => (Value::Null, "derived", Some(how)),
    };
    let mut row = json!({
        "key": k.key,
        "field": k.field,
        "unit": k.unit.name(),
        "allowed": allowed(k.allowed),
        "default": default,
        "default_from": from,
        "doc": k.doc,
    });
    if let Some(how) = derived {
        row["derived"] = Value::from(how);
    }
    row
}

fn allowed(a: Allowed) -> Value {
    match a {
        Allowed::Any => Value::Null,
        Allowed::Range { lo, hi, open_lo } => {
            json!({ "lo": number(lo), "hi": hi.is_finite().then(|| number(hi)), "open_lo": open_lo })
        }
        Allowed::Names(names) => json!({ "values": names }),
        Allowed::Variants(of) => json!({ "values": of() }),
    }
}

/// A bound as JSON: an integer when it is one (ranges of counts), else a float.
fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.007_199_254_740_992e15 {
        Value::from(x as i64)
    } else if x.fract() == 0.0 && (0.0..=u64::MAX as f64).contains(&x) {
        Value::from(x as u64)
    } else {
        Value::from(x)
    }
}

fn object<T: serde::Serialize>(value: &T) -> Map<String, Value> {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => map,
        _ => unreachable!("configuration structs serialize to JSON objects"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(v: &Value) -> &Vec<Value> {
        v["keys"].as_array().unwrap()
    }

    /// Every `TcpConfig` field a scenario can set has a row, and every row's field is one.
    #[test]
    fn every_tcp_field_has_a_key_and_every_key_a_field() {
        let s = scenario_schema();
        let fields: Vec<&str> = rows(&s["tcp"]).iter().filter_map(|r| r["field"].as_str()).collect();
        let config = object(&TcpConfig::default());
        for f in config.keys() {
            assert!(fields.contains(&f.as_str()), "TcpConfig field {f} has no scenario key");
        }
        for f in &fields {
            assert!(config.contains_key(*f) || *f == "personality", "key row names unknown field {f}");
        }
    }

    /// Every field of each queue kind's engine JSON has a row (the link's rate and the
    /// front's own `on`, `quench` aside), and every row's field is one of the kind's.
    #[test]
    fn every_queue_field_has_a_key_and_every_key_a_field() {
        let s = scenario_schema();
        let from_front = ["kind", "link_rate_bps", "on", "quench"];
        for (kind, spec) in QUEUE_KINDS.iter().zip(s["queue"]["kinds"].as_array().unwrap()) {
            let config = object(&(kind.default)());
            let fields: Vec<&str> = rows(spec).iter().filter_map(|r| r["field"].as_str()).collect();
            for f in config.keys().filter(|f| !from_front.contains(&f.as_str())) {
                assert!(fields.contains(&f.as_str()), "{}: field {f} has no scenario key", kind.name);
            }
            let skipped_when_none = ["ns2_rng_skip"];
            for f in &fields {
                let known = config.contains_key(*f) || skipped_when_none.contains(f);
                assert!(known, "{}: key row names unknown field {f}", kind.name);
            }
        }
    }

    #[test]
    fn defaults_come_from_the_engine_values() {
        let s = scenario_schema();
        let tcp = rows(&s["tcp"]);
        let find = |rows: &Vec<Value>, key: &str| rows.iter().find(|r| r["key"] == key).unwrap().clone();
        assert_eq!(find(tcp, "init_cwnd")["default"], 2);
        assert_eq!(find(tcp, "init_cwnd")["personality"], true);
        assert_eq!(find(tcp, "mss")["personality"], false);
        assert_eq!(find(tcp, "personality")["default"], "rfc");
        assert_eq!(find(tcp, "recovery")["allowed"]["values"], json!(["tahoe", "reno", "newreno", "sack"]));
        assert_eq!(find(tcp, "dctcp_shift_g")["default"], 4);
        let kinds = s["queue"]["kinds"].as_array().unwrap();
        let fq = kinds.iter().find(|k| k["name"] == "fq_codel").unwrap();
        assert_eq!(find(rows(fq), "limit")["default"], 10240);
        assert_eq!(find(rows(fq), "ecn")["default"], true);
        assert_eq!(find(rows(fq), "target")["default"], 5_000_000);
        let red = kinds.iter().find(|k| k["name"] == "red").unwrap();
        assert_eq!(find(rows(red), "min_th")["default_from"], "required");
        assert_eq!(find(rows(red), "limit")["default"], 1000);
        assert_eq!(find(rows(red), "personality")["allowed"]["values"], json!(["floyd93", "ns2", "ns3", "linux"]));
    }

    /// Each kind's defaults (with the keys a scenario must give and the link's rate set) pass the engine's check:
    /// the defaults the schema shows are values the engine accepts.
    #[test]
    fn each_queue_kind_default_is_valid() {
        for kind in QUEUE_KINDS {
            let mut v = serde_json::to_value((kind.default)()).unwrap();
            if kind.name == "pi" {
                v["q_ref"] = json!(20.0);
            }
            if v.get("link_rate_bps").is_some() {
                v["link_rate_bps"] = json!(10_000_000); // the link's, set by the front
            }
            if kind.name == "step" {
                v["threshold"] = json!(20);
            }
            let cfg: ecnlab_aqm::QueueConfig = serde_json::from_value(v).unwrap();
            assert_eq!(cfg.validate(), Ok(()), "{}", kind.name);
        }
    }

    /// Every application row names a field of its `AppSpec` variant: the engine's JSON with
    /// the rows' fields set is refused for no unknown field.
    #[test]
    fn every_app_key_is_a_field_of_its_application() {
        for kind in crate::spec::APP_KINDS {
            let mut v = json!({ "kind": kind.name });
            for k in kind.keys {
                let value = match k.unit {
                    ecnlab_wire::keys::Unit::Choice => json!(allowed(k.allowed)["values"][0]),
                    ecnlab_wire::keys::Unit::Number => json!(1.0),
                    _ => json!(1),
                };
                if let Some(f) = k.field {
                    v[f] = value;
                }
            }
            if let Err(e) = serde_json::from_value::<crate::spec::AppSpec>(v) {
                assert!(!e.to_string().contains("unknown field"), "{}: {e}", kind.name);
            }
        }
    }
}
