//! Serde values to Python objects: what `json.loads(serde_json::to_string(value))` gives,
//! without the text in between (the engine's result, `run_split`).
//!
//! The rules are serde_json's serializer's (`serde_json::ser`), read back by `json.loads`:
//! - `bool` → `bool`; every integer type → `int`; `f32`/`f64` → `float`, NaN and ±infinity →
//!   `None` (serde_json writes `null`); an `f32` is its shortest decimal text read as a double;
//! - `char` and `str` → `str`; bytes → a list of `int`s;
//! - `None`, `()` and unit structs → `None`; `Some(v)` and newtype structs → `v`;
//! - sequences, tuples and tuple structs → `list`; structs and maps → `dict`, keys in order
//!   (a repeated key keeps its first place and its last value, as `json.loads` does);
//! - enum variants, externally tagged: a unit variant → its name, any other → `{name: value}`;
//! - map keys: strings as they are, integers as their decimal text, booleans as `"true"` /
//!   `"false"`; any other key is an error (serde_json writes no other kind the engine uses).
//!
//! Why here: the result of ten thousand flows is about ten megabytes of JSON, which `json.loads`
//! reads in a few per cent of the engine's time; building the objects directly costs a fraction
//! of that. `tests/test_summary_schema.py` holds the two equal on every example scenario.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyString};
use pyo3::BoundObject;
use serde::ser::{self, Serialize};
use std::fmt;

/// `value` as the Python objects `json.loads` makes of its serde_json text.
pub fn to_python<'py, T: Serialize + ?Sized>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    value.serialize(ToPy { py }).map_err(|e| e.0)
}

/// A Python error carried through serde.
#[derive(Debug)]
pub struct Error(PyErr);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(PyValueError::new_err(msg.to_string()))
    }
}

impl From<PyErr> for Error {
    fn from(e: PyErr) -> Self {
        Error(e)
    }
}

type Res<'py> = Result<Bound<'py, PyAny>, Error>;

#[derive(Clone, Copy)]
struct ToPy<'py> {
    py: Python<'py>,
}

impl<'py> ToPy<'py> {
    fn int<T: IntoPyObject<'py>>(self, v: T) -> Res<'py> {
        Ok(v.into_pyobject(self.py).map_err(Into::into)?.into_any().into_bound())
    }

    fn float(self, v: f64) -> Res<'py> {
        Ok(if v.is_finite() { PyFloat::new(self.py, v).into_any() } else { self.py.None().into_bound(self.py) })
    }

    fn none(self) -> Res<'py> {
        Ok(self.py.None().into_bound(self.py))
    }

    /// `{variant: value}`, an externally tagged variant.
    fn tagged(self, variant: &'static str, value: Bound<'py, PyAny>) -> Res<'py> {
        let d = PyDict::new(self.py);
        d.set_item(PyString::intern(self.py, variant), value)?;
        Ok(d.into_any())
    }
}

impl<'py> ser::Serializer for ToPy<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    type SerializeSeq = Seq<'py>;
    type SerializeTuple = Seq<'py>;
    type SerializeTupleStruct = Seq<'py>;
    type SerializeTupleVariant = Seq<'py>;
    type SerializeMap = Map<'py>;
    type SerializeStruct = Map<'py>;
    type SerializeStructVariant = Map<'py>;

    fn serialize_bool(self, v: bool) -> Res<'py> {
        Ok(PyBool::new(self.py, v).to_owned().into_any())
    }
    fn serialize_i8(self, v: i8) -> Res<'py> {
        self.int(v)
    }
    fn serialize_i16(self, v: i16) -> Res<'py> {
        self.int(v)
    }
    fn serialize_i32(self, v: i32) -> Res<'py> {
        self.int(v)
    }
    fn serialize_i64(self, v: i64) -> Res<'py> {
        self.int(v)
    }
    fn serialize_i128(self, v: i128) -> Res<'py> {
        self.int(v)
    }
    fn serialize_u8(self, v: u8) -> Res<'py> {
        self.int(v)
    }
    fn serialize_u16(self, v: u16) -> Res<'py> {
        self.int(v)
    }
    fn serialize_u32(self, v: u32) -> Res<'py> {
        self.int(v)
    }
    fn serialize_u64(self, v: u64) -> Res<'py> {
        self.int(v)
    }
    fn serialize_u128(self, v: u128) -> Res<'py> {
        self.int(v)
    }
    fn serialize_f32(self, v: f32) -> Res<'py> {
        // serde_json writes an f32's shortest text; json.loads reads that text as a double.
        self.float(if v.is_finite() { v.to_string().parse().expect("a float's text") } else { f64::NAN })
    }
    fn serialize_f64(self, v: f64) -> Res<'py> {
        self.float(v)
    }
    fn serialize_char(self, v: char) -> Res<'py> {
        Ok(PyString::new(self.py, v.encode_utf8(&mut [0; 4])).into_any())
    }
    fn serialize_str(self, v: &str) -> Res<'py> {
        Ok(PyString::new(self.py, v).into_any())
    }
    fn serialize_bytes(self, v: &[u8]) -> Res<'py> {
        Ok(PyList::new(self.py, v)?.into_any())
    }
    fn serialize_none(self) -> Res<'py> {
        self.none()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Res<'py> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Res<'py> {
        self.none()
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Res<'py> {
        self.none()
    }
    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Res<'py> {
        Ok(PyString::intern(self.py, variant).into_any())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, value: &T) -> Res<'py> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Res<'py> {
        let inner = value.serialize(self)?;
        self.tagged(variant, inner)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Seq<'py>, Error> {
        Ok(Seq { to: self, items: Vec::with_capacity(len.unwrap_or(0)), variant: None })
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq<'py>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Seq<'py>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Seq<'py>, Error> {
        Ok(Seq { to: self, items: Vec::with_capacity(len), variant: Some(variant) })
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Map<'py>, Error> {
        Ok(Map { to: self, dict: PyDict::new(self.py), key: None, variant: None })
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Map<'py>, Error> {
        self.serialize_map(None)
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Map<'py>, Error> {
        Ok(Map { to: self, dict: PyDict::new(self.py), key: None, variant: Some(variant) })
    }
}

/// A list being built; with `variant`, the value of `{variant: [...]}`.
pub struct Seq<'py> {
    to: ToPy<'py>,
    items: Vec<Bound<'py, PyAny>>,
    variant: Option<&'static str>,
}

impl<'py> Seq<'py> {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.items.push(value.serialize(self.to)?);
        Ok(())
    }

    fn finish(self) -> Res<'py> {
        let list = PyList::new(self.to.py, self.items)?.into_any();
        match self.variant {
            Some(v) => self.to.tagged(v, list),
            None => Ok(list),
        }
    }
}

impl<'py> ser::SerializeSeq for Seq<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Res<'py> {
        self.finish()
    }
}

impl<'py> ser::SerializeTuple for Seq<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Res<'py> {
        self.finish()
    }
}

impl<'py> ser::SerializeTupleStruct for Seq<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Res<'py> {
        self.finish()
    }
}

impl<'py> ser::SerializeTupleVariant for Seq<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Res<'py> {
        self.finish()
    }
}

/// A dict being built; with `variant`, the value of `{variant: {...}}`.
pub struct Map<'py> {
    to: ToPy<'py>,
    dict: Bound<'py, PyDict>,
    key: Option<Bound<'py, PyAny>>,
    variant: Option<&'static str>,
}

impl<'py> Map<'py> {
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        let v = value.serialize(self.to)?;
        self.dict.set_item(PyString::intern(self.to.py, key), v)?;
        Ok(())
    }

    fn finish(self) -> Res<'py> {
        let dict = self.dict.into_any();
        match self.variant {
            Some(v) => self.to.tagged(v, dict),
            None => Ok(dict),
        }
    }
}

impl<'py> ser::SerializeMap for Map<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key = Some(map_key(key.serialize(self.to)?)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self.key.take().ok_or_else(|| <Error as ser::Error>::custom("a map value before its key"))?;
        self.dict.set_item(key, value.serialize(self.to)?)?;
        Ok(())
    }
    fn end(self) -> Res<'py> {
        self.finish()
    }
}

impl<'py> ser::SerializeStruct for Map<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        self.field(key, value)
    }
    fn end(self) -> Res<'py> {
        self.finish()
    }
}

impl<'py> ser::SerializeStructVariant for Map<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        self.field(key, value)
    }
    fn end(self) -> Res<'py> {
        self.finish()
    }
}

/// A map key as serde_json writes it: a string as it is, an integer as its decimal text, a
/// boolean as `"true"` / `"false"`.
fn map_key(key: Bound<'_, PyAny>) -> Res<'_> {
    if key.is_instance_of::<PyString>() {
        return Ok(key);
    }
    if let Ok(b) = key.cast::<PyBool>() {
        return Ok(PyString::new(key.py(), if b.is_true() { "true" } else { "false" }).into_any());
    }
    if key.is_instance_of::<pyo3::types::PyInt>() {
        return Ok(key.str()?.into_any());
    }
    Err(<Error as ser::Error>::custom(format!(
        "a map key must be a string or an integer, not {}",
        key.get_type().name()?
    )))
}
