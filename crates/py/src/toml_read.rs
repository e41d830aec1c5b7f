//! TOML text to Python values, for scenario and sweep files (`ecnlab.config.read_toml`).
//!
//! Spec: TOML v1.0.0 (<https://toml.io/en/v1.0.0>) as Python's `tomllib` returns it — a
//! document is a `dict`; tables and inline tables are `dict`s in the order their keys first
//! appear; arrays and arrays of tables are `list`s; strings `str`, integers `int`, floats
//! `float` (`inf`, `nan` included), booleans `bool`. The parser is the `toml` crate's document
//! parser (`toml::de::DeTable`: the values as written, spans, no formatting kept), which reads
//! TOML v1.1.0, a superset of v1.0.0: every file `tomllib` reads gives the same values.
//!
//! Three cases are left to `tomllib`, so its messages and types stay the only ones a user sees:
//! text this parser rejects (the caller parses it again with `tomllib` to report the error);
//! documents holding a date or time (`tomllib` returns `datetime` objects; no scenario key
//! takes one, and the scenario parser names the key and the type it wanted); and numbers out of
//! a double's or a 64-bit integer's range (`tomllib` reads them as Python's `int` and `float`
//! do). All come back as `None`.
//!
//! A string of up to [`SHARED_MAX`] bytes that recurs (a key, `kind = "bulk"`, a start range)
//! becomes one `str` object, hashed once: a generator's thousands of `[[flows]]` entries repeat
//! their keys and most of their values.
//!
//! Why here: `tomllib` is pure Python and costs about a third of the engine's time on a
//! scenario of ten thousand `[[flows]]` entries; this reader costs about one per cent of it.

use std::collections::HashMap;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use toml::de::{DeTable, DeValue};

/// The longest string shared between the places it occurs.
const SHARED_MAX: usize = 32;

/// The values of TOML `text`, or None when `tomllib` must read it (see the module's header).
#[pyfunction]
pub fn parse_toml(py: Python<'_>, text: &str) -> PyResult<Option<Py<PyAny>>> {
    let Ok(doc) = DeTable::parse(text) else {
        return Ok(None);
    };
    let mut reader = Reader { py, shared: HashMap::new() };
    Ok(reader.table(doc.get_ref())?.map(|d| d.into_any().unbind()))
}

struct Reader<'py, 'i> {
    py: Python<'py>,
    shared: HashMap<&'i str, Bound<'py, PyString>>,
}

impl<'py, 'i> Reader<'py, 'i> {
    /// `s` as a `str`, the same object for each short string that recurs.
    fn string(&mut self, s: &'i str) -> Bound<'py, PyString> {
        if s.len() > SHARED_MAX {
            return PyString::new(self.py, s);
        }
        self.shared.entry(s).or_insert_with(|| PyString::new(self.py, s)).clone()
    }

    /// A table's keys and values in order; None when it holds what `tomllib` must read.
    fn table(&mut self, t: &'i DeTable<'i>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let out = PyDict::new(self.py);
        for (key, item) in t.iter() {
            match self.value(item.get_ref())? {
                Some(v) => out.set_item(self.string(key.get_ref()), v)?,
                None => return Ok(None),
            }
        }
        Ok(Some(out))
    }

    fn value(&mut self, v: &'i DeValue<'i>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let py = self.py;
        Ok(Some(match v {
            DeValue::String(s) => self.string(s).into_any(),
            DeValue::Integer(i) => match i64::from_str_radix(i.as_str(), i.radix()) {
                Ok(n) => n.into_pyobject(py)?.into_any(),
                Err(_) => return Ok(None),
            },
            DeValue::Float(f) => match float(f.as_str()) {
                Some(x) => x.into_pyobject(py)?.into_any(),
                None => return Ok(None),
            },
            DeValue::Boolean(b) => b.into_pyobject(py)?.to_owned().into_any(),
            DeValue::Datetime(_) => return Ok(None),
            DeValue::Array(a) => {
                let out = PyList::empty(py);
                for x in a.iter() {
                    match self.value(x.get_ref())? {
                        Some(x) => out.append(x)?,
                        None => return Ok(None),
                    }
                }
                out.into_any()
            }
            DeValue::Table(t) => match self.table(t)? {
                Some(d) => d.into_any(),
                None => return Ok(None),
            },
        }))
    }
}

/// A TOML float's decoded text (`1e3`, `-0.5`, `inf`, `-nan`) as a double; None when it does
/// not fit one (`1e400`), which `tomllib` reads as Python's `float` does.
fn float(text: &str) -> Option<f64> {
    let x: f64 = text.parse().ok()?;
    (x.is_finite() || text.contains("inf") || text.contains("nan")).then_some(x)
}
