//! Reading the spec's `flows`: each distinct `tcp` table once.
//!
//! A `TcpConfig` is read as the fields its personality sets with the given ones over them
//! (`ecnlab_tcp::TcpConfig`'s `Deserialize`: the personality's whole configuration built,
//! merged and read again), some microseconds a table. A generated scenario lists thousands
//! of entries whose tables are the same text, so each entry's table is first taken as its
//! JSON text and each distinct text read once; the entries share the `TcpConfig` it makes.
//! Texts that differ (other spacing or key order) are read apart and make the same values:
//! what an entry gets never depends on the entries around it.
//!
//! A table that does not read is reported as `flows[i].tcp: <serde's message>`, `i` the
//! first entry with that text.

use crate::spec::{FlowEntry, FlowSpec};
use ecnlab_tcp::TcpConfig;
use serde::de::{Deserializer, Error, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::fmt;

/// `SimSpec::flows` (`#[serde(deserialize_with)]`).
pub(crate) fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<FlowSpec>, D::Error> {
    d.deserialize_seq(Entries)
}

struct Entries;

impl<'de> Visitor<'de> for Entries {
    type Value = Vec<FlowSpec>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of flow entries")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut read: HashMap<Box<str>, TcpConfig> = HashMap::new();
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(e) = seq.next_element::<FlowEntry<Box<RawValue>>>()? {
            let text = e.tcp.get();
            let tcp = match read.get(text) {
                Some(cfg) => cfg.clone(),
                None => {
                    let cfg: TcpConfig = serde_json::from_str(text)
                        .map_err(|err| A::Error::custom(format!("flows[{}].tcp: {err}", out.len())))?;
                    read.insert(text.into(), cfg.clone());
                    cfg
                }
            };
            let FlowEntry { id, src, dst, count, start_ns, start_spread_ns, initiator, app, tcp: _ } = e;
            out.push(FlowEntry { id, src, dst, count, start_ns, start_spread_ns, initiator, app, tcp });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use crate::spec::SimSpec;
    use serde_json::json;

    fn spec(tcps: &[serde_json::Value]) -> serde_json::Value {
        let flows: Vec<_> = tcps
            .iter()
            .enumerate()
            .map(|(i, tcp)| {
                json!({"id": format!("f{i}"), "src": "a", "dst": "b", "start_ns": 0, "initiator": "src",
                       "app": {"kind": "bulk", "bytes": null}, "tcp": tcp})
            })
            .collect();
        json!({"seed": 1, "duration_ns": 1_000_000_000u64, "nodes": [], "links": [], "flows": flows})
    }

    fn read(tcps: &[serde_json::Value]) -> Result<SimSpec, serde_json::Error> {
        serde_json::from_str(&spec(tcps).to_string())
    }

    /// Tables read together give each entry what reading its table alone gives.
    #[test]
    fn each_entry_gets_its_own_tables_configuration() {
        let tables = [
            json!({"personality": "linux", "mss": 1000}),
            json!({"mss": 1000}),
            json!({"personality": "linux", "mss": 1000}),
            json!({"mss": 1000, "personality": "linux"}),
            json!({}),
            json!({"personality": "ns2"}),
            json!({}),
        ];
        let together = read(&tables).expect("valid");
        for (i, table) in tables.iter().enumerate() {
            let alone = read(std::slice::from_ref(table)).expect("valid");
            assert_eq!(together.flows[i].tcp, alone.flows[0].tcp, "entry {i}");
        }
        assert_ne!(together.flows[0].tcp, together.flows[1].tcp);
        assert_eq!(together.flows[0].tcp, together.flows[3].tcp);
    }

    #[test]
    fn a_table_that_does_not_read_names_its_entry() {
        let err = read(&[json!({}), json!({}), json!({"mss": "big"})]).expect_err("mss is a number");
        assert!(err.to_string().starts_with("flows[2].tcp: invalid type: string \"big\""), "{err}");
        let err = read(&[json!({"personality": "bsd"})]).expect_err("no such personality");
        assert!(err.to_string().starts_with("flows[0].tcp: personality: unknown variant `bsd`"), "{err}");
    }
}
