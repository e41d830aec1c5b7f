//! The engine's flow records as `summary.json` holds them, written by the engine beside the
//! Python objects it returns (`run_split`), so the summary's largest part is not made twice.
//!
//! The text is what `json_text.rs` writes of `to_python.rs`'s objects for the same serde value
//! (Python's `json.dumps(value, indent=2, ensure_ascii=False)`), laid out as a value of the
//! summary's top-level object ([`DEPTH`]). Both start from the same `Serialize` impls, so keys,
//! their order and skipped fields agree; the rules that differ from serde_json's own output
//! are this file's:
//! - layout: `[`/`{`, a newline and two spaces per level before each item, items joined by `,`,
//!   a newline at the parent's indent before `]`/`}`; `[]`/`{}` when empty; `": "` after keys;
//! - floats: `float.__repr__` (`json_text::write_python_repr`); an `f32` is its shortest text
//!   read as a double (as `to_python` reads it); NaN and ±infinity are `null` (serde_json
//!   writes `null` for them, and `to_python` makes them `None`).
//!
//! Strings are escaped as serde_json escapes them, which is Python's rule with
//! `ensure_ascii=False`: `"` `\` `\b` `\f` `\n` `\r` `\t`, any other byte below 0x20 as
//! `\u00xx` (lowercase hex). Integers are their decimal text in both.
//!
//! Why: the records of ten thousand flows are twelve megabytes of text; Python's walk over
//! their objects costs about 3 % of the engine's time after the run, while this runs on
//! another core during the objects' making (`run_split`). `tests/test_summary_schema.py`
//! holds the text equal to `json_text`'s on every example scenario.

use pyo3::prelude::*;
use pyo3::types::PyList;
use serde::Serialize;
use std::io::{self, Write};

/// The depth the text is laid out for: a value of the summary's top-level object.
pub const DEPTH: usize = 1;

/// A list's JSON text as `json_text` would write it at [`DEPTH`], and the list it is the text of.
#[pyclass(frozen, module = "ecnlab._core")]
pub struct RecordsText {
    pub(crate) list: Py<PyList>,
    pub(crate) len: usize,
    pub(crate) text: String,
}

impl RecordsText {
    /// The text to write for `list` at `depth`, if this is its text: the same object, as long as
    /// when it was made, and at the depth the text is laid out for.
    pub(crate) fn text_for(&self, list: &Bound<'_, PyList>, depth: Option<usize>) -> Option<&str> {
        let same = list.as_ptr() == self.list.as_ptr() && list.len() == self.len && depth == Some(DEPTH);
        same.then_some(self.text.as_str())
    }
}

/// The text of `value` (a sequence of records) laid out at [`DEPTH`].
pub fn render<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    let mut bytes = Vec::with_capacity(1 << 20);
    let mut ser = serde_json::Serializer::with_formatter(&mut bytes, PythonIndent { depth: DEPTH, has_value: false });
    value.serialize(&mut ser)?;
    Ok(String::from_utf8(bytes).expect("serde_json writes UTF-8"))
}

/// serde_json's formatter for the layout and floats of the module's header.
struct PythonIndent {
    depth: usize,
    has_value: bool,
}

impl PythonIndent {
    fn newline<W: ?Sized + Write>(&self, w: &mut W) -> io::Result<()> {
        w.write_all(b"\n")?;
        for _ in 0..self.depth {
            w.write_all(b"  ")?;
        }
        Ok(())
    }

    fn open<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    fn close<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            self.newline(w)?;
        }
        w.write_all(bracket)
    }

    fn item<W: ?Sized + Write>(&self, w: &mut W, first: bool) -> io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        self.newline(w)
    }

    fn float<W: ?Sized + Write>(w: &mut W, x: f64) -> io::Result<()> {
        let mut text = String::new();
        crate::json_text::write_python_repr(x, &mut text);
        w.write_all(text.as_bytes())
    }
}

impl serde_json::ser::Formatter for PythonIndent {
    fn write_f32<W: ?Sized + Write>(&mut self, w: &mut W, value: f32) -> io::Result<()> {
        Self::float(w, value.to_string().parse().expect("a float's text"))
    }
    fn write_f64<W: ?Sized + Write>(&mut self, w: &mut W, value: f64) -> io::Result<()> {
        Self::float(w, value)
    }
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"[")
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"]")
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.item(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"{")
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"}")
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.item(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}
