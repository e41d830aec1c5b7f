//! TOML text to Python values, for scenario and sweep files (`ecnlab.config.read_toml`).
//!
//! Spec: TOML v1.0.0 (<https://toml.io/en/v1.0.0>) as Python's `tomllib` returns it — a
//! document is a `dict`; tables and inline tables are `dict`s in the order their keys first
//! appear; arrays and arrays of tables are `list`s; strings `str`, integers `int`, floats
//! `float` (`inf`, `nan` included), booleans `bool`. The parser is `toml_edit`'s, which reads
//! TOML v1.1.0, a superset of v1.0.0: every file `tomllib` reads gives the same values.
//!
//! Two cases are left to `tomllib`, so its messages and types stay the only ones a user sees:
//! text this parser rejects (the caller parses it again with `tomllib` to report the error),
//! and documents holding a date or time (`tomllib` returns `datetime` objects; no scenario key
//! takes one, and the scenario parser names the key and the type it wanted). Both come back
//! as `None`.
//!
//! Why here: `tomllib` is pure Python and costs about a third of the engine's time on a
//! scenario of ten thousand `[[flows]]` entries; this reader costs a few per cent of it.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use toml_edit::{DocumentMut, Item, Table, Value};

/// The values of TOML `text`, or None when `tomllib` must read it (see the module's header).
#[pyfunction]
pub fn parse_toml(py: Python<'_>, text: &str) -> PyResult<Option<Py<PyAny>>> {
    let Ok(doc) = text.parse::<DocumentMut>() else {
        return Ok(None);
    };
    Ok(table(py, doc.as_table())?.map(|d| d.into_any().unbind()))
}

/// A table's keys and values in order; None when it holds a date or time.
fn table<'py>(py: Python<'py>, t: &Table) -> PyResult<Option<Bound<'py, PyDict>>> {
    let out = PyDict::new(py);
    for (key, item) in t.iter() {
        match item_value(py, item)? {
            Some(v) => out.set_item(key, v)?,
            None => return Ok(None),
        }
    }
    Ok(Some(out))
}

fn item_value<'py>(py: Python<'py>, item: &Item) -> PyResult<Option<Bound<'py, PyAny>>> {
    Ok(match item {
        Item::None => Some(py.None().into_bound(py)),
        Item::Value(v) => value(py, v)?,
        Item::Table(t) => table(py, t)?.map(Bound::into_any),
        Item::ArrayOfTables(a) => {
            let out = PyList::empty(py);
            for t in a.iter() {
                match table(py, t)? {
                    Some(d) => out.append(d)?,
                    None => return Ok(None),
                }
            }
            Some(out.into_any())
        }
    })
}

fn value<'py>(py: Python<'py>, v: &Value) -> PyResult<Option<Bound<'py, PyAny>>> {
    Ok(Some(match v {
        Value::String(s) => s.value().into_pyobject(py)?.into_any(),
        Value::Integer(i) => i.value().into_pyobject(py)?.into_any(),
        Value::Float(f) => f.value().into_pyobject(py)?.into_any(),
        Value::Boolean(b) => b.value().into_pyobject(py)?.to_owned().into_any(),
        Value::Datetime(_) => return Ok(None),
        Value::Array(a) => {
            let out = PyList::empty(py);
            for x in a.iter() {
                match value(py, x)? {
                    Some(x) => out.append(x)?,
                    None => return Ok(None),
                }
            }
            out.into_any()
        }
        Value::InlineTable(t) => {
            let out = PyDict::new(py);
            for (key, x) in t.iter() {
                match value(py, x)? {
                    Some(x) => out.set_item(key, x)?,
                    None => return Ok(None),
                }
            }
            out.into_any()
        }
    }))
}
