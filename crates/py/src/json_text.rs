//! Python values to JSON text: the characters Python's
//! `json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)` writes
//! (`Lib/json/encoder.py`), for `summary.json` (`ecnlab.results.dumps`), and without `indent`
//! and with the separators `,` and `:` (no spaces: [`dumps_compact`]) for the engine's input
//! (`ecnlab.lower.engine_json`).
//!
//! The rules kept, as `json.encoder` has them:
//! - an object is `{`, a newline, two spaces more per level, `"key": value` items joined by
//!   `,` and a newline, a newline and `}` at the parent's indent; an array likewise with
//!   `[`/`]`; an empty one is `{}` / `[]`; tuples are arrays (compact: `{"key":value,...}`,
//!   no newlines, no spaces);
//! - strings: `"` and `\` escaped, `\n` `\r` `\t` `\b` `\f` as such, every other character
//!   below U+0020 as `\u00xx` (lowercase hex); nothing else escaped (`ensure_ascii=False`);
//! - `True`/`False`/`None` as `true`/`false`/`null`; integers as `int.__repr__`; floats as
//!   `float.__repr__` (the shortest text that reads back to the same double: fixed notation
//!   when the decimal exponent is in −5 < e < 16, else `d.ddde±XX` with at least two exponent
//!   digits); NaN and ±infinity raise `ValueError` (`allow_nan=False`);
//! - keys: strings as they are; booleans, None, integers and floats as their text, quoted;
//!   anything else raises `TypeError`;
//! - subclasses of str, int, float, list and dict are written as their base type; any other
//!   value raises `TypeError`. A value that contains itself is not detected (ecnlab's records
//!   never do); nesting is bounded by Python's own recursion limit on building it.
//!
//! Why here: with `indent` set the standard library encodes in pure Python, which costs about
//! a third of the engine's time on a summary of ten thousand flows. Numbers are formatted in
//! place (no text allocated per number); [`write_indented_file`] writes a summary of many
//! megabytes into its file in pieces, never holding it whole nor copying it as `str`, `str +
//! "\n"` and its UTF-8 encoding; [`dumps_compact`] writes a dict that recurs in its value (the
//! one `tcp` table of every flow entry of a shape) once and copies its text.
//! `tests/test_jsontext.py` holds this equal to `json.dumps` on generated values.

use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use pyo3::PyTypeInfo;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::ops::Range;

use crate::records_text::RecordsText;

/// `value` as `json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)` writes it.
#[pyfunction]
pub fn dumps_indented(value: &Bound<'_, PyAny>) -> PyResult<String> {
    let mut out = Out::default();
    write_value(value, &mut out, Some(0))?;
    Ok(out.text)
}

/// `value` as `json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)`
/// writes it.
#[pyfunction]
pub fn dumps_compact(value: &Bound<'_, PyAny>) -> PyResult<String> {
    let mut out = Out { written: Some(HashMap::new()), ..Out::default() };
    write_value(value, &mut out, None)?;
    Ok(out.text)
}

/// The text of [`dumps_indented`] and a final newline, as UTF-8 bytes: a JSON file's contents.
/// `records`: the engine's text of a list in `value` (`records_text.rs`), written for that list.
#[pyfunction]
#[pyo3(signature = (value, records=None))]
pub fn dumps_indented_file<'py>(
    py: Python<'py>,
    value: &Bound<'py, PyAny>,
    records: Option<&Bound<'py, RecordsText>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut out = Out { records: records.map(Bound::get), ..Out::default() };
    write_value(value, &mut out, Some(0))?;
    out.text.push('\n');
    Ok(PyBytes::new(py, out.text.as_bytes()))
}

/// Writes [`dumps_indented_file`]'s bytes into the file `path` (created, or emptied first). An
/// operating-system error raises `OSError` with its `errno` and `strerror`, as Python's own writes
/// do (a full disk: `OSError(ENOSPC, "No space left on device")`).
#[pyfunction]
#[pyo3(signature = (path, value, records=None))]
pub fn write_indented_file(
    path: std::path::PathBuf,
    value: &Bound<'_, PyAny>,
    records: Option<&Bound<'_, RecordsText>>,
) -> PyResult<()> {
    let mut file = std::fs::File::create(&path).map_err(os_error)?;
    let mut out = Out { file: Some(&mut file), records: records.map(Bound::get), ..Out::default() };
    write_value(value, &mut out, Some(0))?;
    out.text.push('\n');
    out.spill(0)
}

/// The bytes of a file's text held before they are written to it.
const PIECE: usize = 1 << 20;

/// The text being written and what writing it needs beside it.
#[derive(Default)]
struct Out<'f> {
    text: String,
    /// [`dumps_compact`]: the span of `text` of each dict written so far, by its address (each
    /// stays alive, held by the value being written, and none changes while it is written).
    written: Option<HashMap<usize, Range<usize>>>,
    /// [`write_indented_file`]: where `text` goes, a piece at a time.
    file: Option<&'f mut std::fs::File>,
    /// The engine's text of one list in the value, written for it (`records_text.rs`).
    records: Option<&'f RecordsText>,
}

impl Out<'_> {
    /// Moves `text` into the file once it holds `at_least` bytes (without a file, keeps it).
    fn spill(&mut self, at_least: usize) -> PyResult<()> {
        if let Some(file) = self.file.as_mut().filter(|_| self.text.len() >= at_least) {
            file.write_all(self.text.as_bytes()).map_err(os_error)?;
            self.text.clear();
        }
        Ok(())
    }
}

/// `OSError(errno, strerror)` (Python picks the subclass of the errno), or the error's text.
fn os_error(e: std::io::Error) -> PyErr {
    match e.raw_os_error() {
        Some(code) => {
            let text = e.to_string();
            let strerror = text.strip_suffix(&format!(" (os error {code})")).unwrap_or(&text).to_owned();
            PyOSError::new_err((code, strerror))
        }
        None => PyOSError::new_err(e.to_string()),
    }
}

/// A line break and the indent of `depth` (the nesting level; None: compact, no break).
fn newline(out: &mut String, depth: Option<usize>) {
    if let Some(depth) = depth {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    }
}

/// The nesting level inside one at `depth`.
fn inner(depth: Option<usize>) -> Option<usize> {
    depth.map(|d| d + 1)
}

fn write_value(v: &Bound<'_, PyAny>, out: &mut Out<'_>, depth: Option<usize>) -> PyResult<()> {
    if write_scalar(v, &mut out.text)? {
        return Ok(());
    }
    if let Ok(d) = v.cast::<PyDict>() {
        write_object(d, out, depth)?;
    } else if let Ok(l) = v.cast::<PyList>() {
        match out.records.and_then(|r| r.text_for(l, depth)) {
            Some(text) => {
                out.text.push_str(text);
                out.spill(PIECE)?;
            }
            None => write_array(l.iter(), l.len(), out, depth)?,
        }
    } else if let Ok(t) = v.cast::<PyTuple>() {
        write_array(t.iter(), t.len(), out, depth)?;
    } else {
        let name = v.get_type().name()?;
        return Err(PyTypeError::new_err(format!("Object of type {name} is not JSON serializable")));
    }
    Ok(())
}

fn write_object(d: &Bound<'_, PyDict>, out: &mut Out<'_>, depth: Option<usize>) -> PyResult<()> {
    let address = d.as_ptr() as usize;
    if let Some(span) = out.written.as_ref().and_then(|w| w.get(&address)).cloned() {
        out.text.extend_from_within(span); // the same dict, written before
        return Ok(());
    }
    let start = out.text.len();
    if d.is_empty() {
        out.text.push_str("{}");
        return Ok(());
    }
    let mut first = true;
    for (k, v) in d.iter() {
        out.text.push_str(if first { "{" } else { "," });
        first = false;
        newline(&mut out.text, inner(depth));
        write_key(&k, &mut out.text)?;
        out.text.push_str(if depth.is_some() { ": " } else { ":" });
        write_value(&v, out, inner(depth))?;
        out.spill(PIECE)?;
    }
    newline(&mut out.text, depth);
    out.text.push('}');
    if let Some(written) = out.written.as_mut() {
        written.insert(address, start..out.text.len());
    }
    Ok(())
}

fn write_array<'py>(
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    len: usize,
    out: &mut Out<'_>,
    depth: Option<usize>,
) -> PyResult<()> {
    if len == 0 {
        out.text.push_str("[]");
        return Ok(());
    }
    let mut first = true;
    for v in items {
        out.text.push_str(if first { "[" } else { "," });
        first = false;
        newline(&mut out.text, inner(depth));
        write_value(&v, out, inner(depth))?;
        out.spill(PIECE)?;
    }
    newline(&mut out.text, depth);
    out.text.push(']');
    Ok(())
}

fn write_key(k: &Bound<'_, PyAny>, out: &mut String) -> PyResult<()> {
    if let Ok(s) = k.cast::<PyString>() {
        write_string(&s.to_cow()?, out);
        return Ok(());
    }
    let mut text = String::new();
    if write_scalar(k, &mut text)? {
        write_string(&text, out); // True -> "true", 1.5 -> "1.5"
        return Ok(());
    }
    let name = k.get_type().name()?;
    Err(PyTypeError::new_err(format!("keys must be str, int, float, bool or None, not {name}")))
}

/// Writes the text of a scalar and returns true, or returns false for anything else.
fn write_scalar(v: &Bound<'_, PyAny>, out: &mut String) -> PyResult<bool> {
    if let Ok(s) = v.cast::<PyString>() {
        write_string(&s.to_cow()?, out);
    } else if v.is_none() {
        out.push_str("null");
    } else if let Ok(b) = v.cast_exact::<PyBool>() {
        out.push_str(if b.is_true() { "true" } else { "false" });
    } else if let Ok(i) = v.cast::<PyInt>() {
        match i.extract::<i64>() {
            Ok(n) => out.push_str(itoa::Buffer::new().format(n)),
            Err(_) => out.push_str(&PyInt::type_object(v.py()).call_method1("__repr__", (i,))?.extract::<String>()?),
        }
    } else if let Ok(f) = v.cast::<PyFloat>() {
        write_float(f.value(), out)?;
    } else {
        return Ok(false);
    }
    Ok(true)
}

fn write_string(s: &str, out: &mut String) {
    out.push('"');
    if !s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        out.push_str(s); // the common case: nothing to escape
    } else {
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                c if (c as u32) < 0x20 => {
                    let _ = write!(out, "\\u{:04x}", c as u32);
                }
                c => out.push(c),
            }
        }
    }
    out.push('"');
}

/// `float.__repr__(x)` for a finite `x`; ValueError for NaN and ±infinity.
fn write_float(x: f64, out: &mut String) -> PyResult<()> {
    if !x.is_finite() {
        let shown = if x.is_nan() {
            "nan"
        } else if x > 0.0 {
            "inf"
        } else {
            "-inf"
        };
        return Err(PyValueError::new_err(format!("Out of range float values are not JSON compliant: {shown}")));
    }
    write_python_repr(x, out);
    Ok(())
}

/// Python's `repr` of a finite double.
#[cfg(test)]
pub(crate) fn python_repr(x: f64) -> String {
    let mut out = String::new();
    write_python_repr(x, &mut out);
    out
}

/// Appends Python's `repr` of a finite double, from Rust's shortest round-trip digits (`{:e}`).
pub(crate) fn write_python_repr(x: f64, out: &mut String) {
    let mut sci = StackText::default();
    let _ = write!(sci, "{x:e}");
    let (mantissa, exp) = sci.as_str().split_once('e').expect("LowerExp writes an exponent");
    let exp: i32 = exp.parse().expect("LowerExp writes an integer exponent");
    if let Some(rest) = mantissa.strip_prefix('-') {
        out.push('-');
        write_digits(rest, exp, out);
    } else {
        write_digits(mantissa, exp, out);
    }
}

/// Appends `mantissa` (`d` or `d.ddd`, the digits of `{:e}`) times 10^`exp` as `repr` lays it out:
/// fixed notation when −5 < `exp` < 16, else `d.ddde±XX` with at least two exponent digits.
fn write_digits(mantissa: &str, exp: i32, out: &mut String) {
    let (first, rest) = mantissa.split_once('.').unwrap_or((mantissa, "")); // `first`: one digit
    let n = 1 + rest.len(); // significant digits
    if !(-5 < exp && exp < 16) {
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        if exp.abs() < 10 {
            out.push('0');
        }
        out.push_str(itoa::Buffer::new().format(exp.abs()));
        return;
    }
    let point = exp + 1; // digits before the decimal point
    if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-point) as usize));
        out.push_str(first);
        out.push_str(rest);
    } else if (point as usize) < n {
        let (before, after) = rest.split_at(point as usize - 1);
        out.push_str(first);
        out.push_str(before);
        out.push('.');
        out.push_str(after);
    } else {
        out.push_str(first);
        out.push_str(rest);
        out.extend(std::iter::repeat_n('0', point as usize - n));
        out.push_str(".0");
    }
}

/// Text written on the stack: `{:e}` of a double is at most 24 bytes (17 digits, a point, a
/// sign, `e-324`).
#[derive(Default)]
struct StackText {
    buf: [u8; 32],
    len: usize,
}

impl StackText {
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.buf[..self.len]).expect("written from str")
    }
}

impl std::fmt::Write for StackText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        self.buf.get_mut(self.len..end).ok_or(std::fmt::Error)?.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::python_repr;

    /// Python 3's `repr` of these doubles (`float_repr_style == 'short'`).
    #[test]
    fn floats_read_as_python_writes_them() {
        let cases = [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (1.5, "1.5"),
            (0.1, "0.1"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.234e-7, "1.234e-07"),
            (123456.789, "123456.789"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (1e100, "1e+100"),
            (-2.5e-300, "-2.5e-300"),
            (9007199254740993.0, "9007199254740992.0"),
            (0.30000000000000004, "0.30000000000000004"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
        ];
        for (x, text) in cases {
            assert_eq!(python_repr(x), text, "{x:e}");
        }
    }
}
