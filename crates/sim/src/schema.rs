//! The summary's schema, read off the output structs themselves (`output.rs`):
//! for each record kind, its keys in order and which of them may be absent
//! (`skip_serializing_if`). The Python front, the emulator's summary and the
//! test fake take their field lists from here (`_core.summary_schema`), so
//! the result format is written down once, by the code that writes it.
//!
//! How: a serializer that accepts only a struct and records each field's
//! name as serde's derive hands it over — `serialize_field` for a key that is
//! written, `skip_field` for one skipped — without serializing any value.

use crate::groups::GroupOut;
use crate::output::{FlowOut, LinkOut, QueueOut, SimOut};
use serde::ser::{self, Impossible, Serialize, SerializeStruct, Serializer};
use serde_json::{json, Value};
use std::fmt;

/// The keys of each record kind: `{"sim"|"flow"|"queue"|"link"|"group"|"query": {"keys": [...], "optional": [...]}}`.
pub fn summary_schema() -> Value {
    json!({
        "sim": keys(&SimOut::default()),
        "flow": keys(&FlowOut::default()),
        "queue": keys(&QueueOut::default()),
        "link": keys(&LinkOut::default()),
        "group": keys(&GroupOut::default()),
        "query": keys(&crate::incast::QueryOut::default()),
    })
}

/// `{"keys": every key in order, "optional": the keys that may be absent}`.
pub(crate) fn keys<T: Serialize>(value: &T) -> Value {
    let fields = value.serialize(FieldNames).expect("output records are structs");
    let all: Vec<&str> = fields.iter().map(|&(k, _)| k).collect();
    let optional: Vec<&str> = fields.iter().filter(|&&(_, skipped)| skipped).map(|&(k, _)| k).collect();
    json!({ "keys": all, "optional": optional })
}

#[derive(Debug)]
struct NotAStruct;

impl fmt::Display for NotAStruct {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the schema is read from structs only")
    }
}

impl std::error::Error for NotAStruct {}

impl ser::Error for NotAStruct {
    fn custom<T: fmt::Display>(_msg: T) -> Self {
        NotAStruct
    }
}

/// (key, skipped) of each field, in declaration order.
struct FieldNames;

struct Fields(Vec<(&'static str, bool)>);

impl SerializeStruct for Fields {
    type Ok = Vec<(&'static str, bool)>;
    type Error = NotAStruct;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, _value: &T) -> Result<(), NotAStruct> {
        self.0.push((key, false));
        Ok(())
    }

    fn skip_field(&mut self, key: &'static str) -> Result<(), NotAStruct> {
        self.0.push((key, true));
        Ok(())
    }

    fn end(self) -> Result<Self::Ok, NotAStruct> {
        Ok(self.0)
    }
}

macro_rules! refuse {
    ($($name:ident($($arg:ty),*)),* $(,)?) => {
        $(fn $name(self, $(_: $arg),*) -> Result<Self::Ok, NotAStruct> { Err(NotAStruct) })*
    };
}

type No = Impossible<Vec<(&'static str, bool)>, NotAStruct>;

impl Serializer for FieldNames {
    type Ok = Vec<(&'static str, bool)>;
    type Error = NotAStruct;
    type SerializeSeq = No;
    type SerializeTuple = No;
    type SerializeTupleStruct = No;
    type SerializeTupleVariant = No;
    type SerializeMap = No;
    type SerializeStruct = Fields;
    type SerializeStructVariant = No;

    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Fields, NotAStruct> {
        Ok(Fields(Vec::with_capacity(len)))
    }

    refuse!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );

    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<Self::Ok, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, _: &T) -> Result<Self::Ok, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Self::Ok, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<No, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_tuple(self, _: usize) -> Result<No, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<No, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_tuple_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<No, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<No, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_struct_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<No, NotAStruct> {
        Err(NotAStruct)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_structs_and_mark_the_skippable_ones() {
        let s = summary_schema();
        assert_eq!(s["sim"]["keys"], json!(["sim_time_s", "events", "packets_forwarded"]));
        assert_eq!(s["sim"]["optional"], json!([]));
        let flow = &s["flow"];
        assert_eq!(flow["keys"][0], "id");
        assert!(flow["optional"].as_array().unwrap().contains(&json!("telnet_writes")));
        assert!(!flow["optional"].as_array().unwrap().contains(&json!("goodput_bps")));
        assert!(s["queue"]["optional"] == json!(["classes"]));
        assert_eq!(s["link"]["optional"], json!(["queue_tail_threshold_bytes", "queue_frac_above", "impairments"]));
    }

    /// A default record written as JSON has exactly the keys that are not optional.
    #[test]
    fn written_keys_are_the_schema_less_the_skipped_ones() {
        let s = summary_schema();
        let written = serde_json::to_value(FlowOut::default()).unwrap();
        let keys: Vec<&str> = written.as_object().unwrap().keys().map(String::as_str).collect();
        let expected: Vec<&str> = s["flow"]["keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap())
            .filter(|k| !s["flow"]["optional"].as_array().unwrap().contains(&json!(k)))
            .collect();
        let mut sorted = expected.clone();
        sorted.sort_unstable();
        let mut got = keys.clone();
        got.sort_unstable();
        assert_eq!(got, sorted);
    }
}
