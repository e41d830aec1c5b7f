//! How the engine describes a scenario key: the row type of the key tables that
//! sit beside each configuration struct (`TcpConfig` and each congestion
//! control's knobs in `crates/tcp`, each queue's `Params` in `crates/aqm`).
//!
//! A row names the key as a scenario writes it, the engine's JSON field it
//! becomes, how the scenario writes its value (a duration, a size, a plain
//! number, ...), what values are allowed and one line of doc. The default is
//! not written in the row: `crates/sim/src/scenario_schema.rs` reads it off the
//! struct's own `Default` (for TCP, the personality table), unless the row says
//! the key is required or its default is derived from something else.
//!
//! An enum's allowed values are read off the type itself ([`variants`]): serde's
//! derive hands its variant names, renames applied, to `deserialize_enum`.

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use std::fmt;

/// How a scenario writes a key's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A duration (seconds, or `"20ms"`): integer ns in the engine.
    Duration,
    /// A size (bytes, or `"64KB"`): integer bytes in the engine.
    Size,
    /// A rate (bit/s, or `"10Mbit"`): integer bit/s in the engine.
    Rate,
    /// An integer.
    Integer,
    /// A number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// One of the allowed names.
    Choice,
    /// Text of its own form (the row's doc says which).
    Text,
}

impl Unit {
    /// The unit's name in the schema.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Duration => "duration",
            Unit::Size => "size",
            Unit::Rate => "rate",
            Unit::Integer => "integer",
            Unit::Number => "number",
            Unit::Boolean => "boolean",
            Unit::Choice => "choice",
            Unit::Text => "text",
        }
    }
}

/// What values a key allows.
#[derive(Clone, Copy, Debug)]
pub enum Allowed {
    /// Whatever its unit allows.
    Any,
    /// `lo ≤ v ≤ hi` (`lo < v` when `open_lo`); durations and sizes in ns and bytes.
    Range { lo: f64, hi: f64, open_lo: bool },
    /// One of these names.
    Names(&'static [&'static str]),
    /// One of an enum's variant names ([`variants`]).
    Variants(fn() -> Vec<&'static str>),
}

/// `lo ..= hi`.
pub const fn range(lo: f64, hi: f64) -> Allowed {
    Allowed::Range { lo, hi, open_lo: false }
}

/// `lo < v ≤ hi`.
pub const fn above(lo: f64, hi: f64) -> Allowed {
    Allowed::Range { lo, hi, open_lo: true }
}

/// Where a key's default comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultFrom {
    /// The struct's `Default` value of the field (absent when that is `None`).
    Field,
    /// None: the key must be given.
    Required,
    /// Computed from other values, as the text says (e.g. `"tcp.mss + 40"`).
    Derived(&'static str),
}

/// One scenario key.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    /// The key in a scenario file.
    pub key: &'static str,
    /// The engine's JSON field it becomes; `None`: the front turns it into
    /// other fields, as the doc says.
    pub field: Option<&'static str>,
    pub unit: Unit,
    pub allowed: Allowed,
    pub default: DefaultFrom,
    /// One line: what the key does, with its source.
    pub doc: &'static str,
}

/// A row: `key!("init_cwnd" => "init_cwnd_segments", Integer, range(1., 100.), "…")`;
/// `key!("mss", Integer, …)` when the field is named as the key, `key!("rtt" => -, …)`
/// for a key the front turns into other fields; `; Required` or `; Derived("…")` last
/// when the default is not the struct's.
#[macro_export]
macro_rules! key {
    (@row $key:expr, $field:expr, $unit:ident, $allowed:expr, $doc:expr, $default:expr) => {
        $crate::keys::Key {
            key: $key,
            field: $field,
            unit: $crate::keys::Unit::$unit,
            allowed: $allowed,
            default: $default,
            doc: $doc,
        }
    };
    ($key:literal => -, $unit:ident, $allowed:expr, $doc:expr $(; $($d:tt)+)?) => {
        $crate::key!(@row $key, None, $unit, $allowed, $doc, $crate::key!(@default $($($d)+)?))
    };
    ($key:literal => $field:literal, $unit:ident, $allowed:expr, $doc:expr $(; $($d:tt)+)?) => {
        $crate::key!(@row $key, Some($field), $unit, $allowed, $doc, $crate::key!(@default $($($d)+)?))
    };
    ($key:literal, $unit:ident, $allowed:expr, $doc:expr $(; $($d:tt)+)?) => {
        $crate::key!(@row $key, Some($key), $unit, $allowed, $doc, $crate::key!(@default $($($d)+)?))
    };
    (@default) => { $crate::keys::DefaultFrom::Field };
    (@default Required) => { $crate::keys::DefaultFrom::Required };
    (@default Derived($text:expr)) => { $crate::keys::DefaultFrom::Derived($text) };
}

/// The variant names of an enum as its JSON writes them (serde's renames applied).
pub fn variants<T: DeserializeOwned>() -> Vec<&'static str> {
    let mut names = Vec::new();
    let _ = T::deserialize(VariantNames(&mut names));
    names
}

/// A deserializer that only records the variant names `deserialize_enum` is handed.
struct VariantNames<'a>(&'a mut Vec<&'static str>);

#[derive(Debug)]
struct Recorded;

impl fmt::Display for Recorded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("only an enum's variant names are read")
    }
}

impl std::error::Error for Recorded {}

impl de::Error for Recorded {
    fn custom<T: fmt::Display>(_msg: T) -> Self {
        Recorded
    }
}

impl<'de> Deserializer<'de> for VariantNames<'_> {
    type Error = Recorded;

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Recorded> {
        self.0.extend_from_slice(variants);
        Err(Recorded)
    }

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Recorded> {
        Err(Recorded)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize)]
    #[serde(rename_all = "snake_case")]
    #[allow(dead_code)]
    enum Mode {
        Off,
        #[serde(rename = "ecn+")]
        EcnPlus,
        SlowButSteady,
    }

    #[test]
    fn variants_are_read_as_the_json_names_them() {
        assert_eq!(variants::<Mode>(), ["off", "ecn+", "slow_but_steady"]);
    }

    #[test]
    fn a_type_that_is_not_an_enum_has_no_variants() {
        assert!(variants::<u32>().is_empty());
        assert!(variants::<bool>().is_empty());
    }

    #[test]
    fn a_row_names_its_field_and_default() {
        let k = key!("init_cwnd" => "init_cwnd_segments", Integer, range(1., 100.), "segments");
        assert_eq!((k.key, k.field, k.default), ("init_cwnd", Some("init_cwnd_segments"), DefaultFrom::Field));
        let k = key!("rtt" => -, Duration, Allowed::Any, "design RTT"; Required);
        assert_eq!((k.field, k.default), (None, DefaultFrom::Required));
        let k = key!("mean_pkt_size" => "mean_pkt_bytes", Integer, range(1., 65535.), "size"; Derived("tcp.mss + 40"));
        assert_eq!(k.default, DefaultFrom::Derived("tcp.mss + 40"));
    }
}
