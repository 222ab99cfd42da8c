//! A run's tables as Parquet files, written from their columns. polars costs
//! about 27 µs per column to write a table (39 % of it estimating each column's
//! distinct values, which no option turns off), and a run has 88 columns: for
//! short runs that was more than the simulation (docs/performance.md). The files
//! hold the same columns, types and values, one row group, Snappy-compressed,
//! with statistics; polars reads them back as the frames they came from.

use std::sync::Arc;

use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical};
use parquet::data_type::{
    BoolType, ByteArray, ByteArrayType, DataType, DoubleType, Int32Type, Int64Type,
};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::{SerializedColumnWriter, SerializedFileWriter};
use parquet::schema::types::{Type, TypePtr};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// One column's values as polars' `to_list()` gives them.
pub enum Values {
    F64(Vec<Option<f64>>),
    U32(Vec<Option<u32>>),
    U64(Vec<Option<u64>>),
    I64(Vec<Option<i64>>),
    Text(Vec<Option<String>>),
    Bool(Vec<Option<bool>>),
    F64Lists(Vec<Option<Vec<Option<f64>>>>),
}

impl Values {
    /// The polars dtype these values are read as (the name `read` takes).
    pub fn dtype(&self) -> &'static str {
        match self {
            Values::F64(_) => "Float64",
            Values::U32(_) => "UInt32",
            Values::U64(_) => "UInt64",
            Values::I64(_) => "Int64",
            Values::Text(_) => "String",
            Values::Bool(_) => "Boolean",
            Values::F64Lists(_) => "List(Float64)",
        }
    }

    /// Rows.
    pub fn len(&self) -> usize {
        match self {
            Values::F64(v) => v.len(),
            Values::U32(v) => v.len(),
            Values::U64(v) => v.len(),
            Values::I64(v) => v.len(),
            Values::Text(v) => v.len(),
            Values::Bool(v) => v.len(),
            Values::F64Lists(v) => v.len(),
        }
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `i`'s value as Python's json module writes it (None: a non-finite number).
    pub fn write_json(&self, out: &mut String, i: usize) -> Option<()> {
        fn or_null<T>(
            out: &mut String,
            v: &Option<T>,
            write: impl FnOnce(&mut String, &T) -> Option<()>,
        ) -> Option<()> {
            match v {
                Some(x) => write(out, x),
                None => {
                    out.push_str("null");
                    Some(())
                }
            }
        }
        let display = |out: &mut String, x: &dyn std::fmt::Display| {
            out.push_str(&x.to_string());
            Some(())
        };
        match self {
            Values::F64(v) => or_null(out, &v[i], |o, x| crate::json::float(o, *x)),
            Values::U32(v) => or_null(out, &v[i], |o, x| display(o, x)),
            Values::U64(v) => or_null(out, &v[i], |o, x| display(o, x)),
            Values::I64(v) => or_null(out, &v[i], |o, x| display(o, x)),
            Values::Bool(v) => or_null(out, &v[i], |o, x| display(o, x)),
            Values::Text(v) => or_null(out, &v[i], |o, x| {
                crate::json::string(o, x);
                Some(())
            }),
            Values::F64Lists(v) => or_null(out, &v[i], |o, xs| {
                o.push('[');
                for (k, x) in xs.iter().enumerate() {
                    o.push_str(if k > 0 { "," } else { "" });
                    or_null(o, x, |o, x| crate::json::float(o, *x))?;
                }
                o.push(']');
                Some(())
            }),
        }
    }

    /// `list`'s values read as polars dtype `dtype` (by name).
    fn read(name: &str, dtype: &str, list: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(match dtype {
            "Float64" => Values::F64(list.extract()?),
            "UInt32" => Values::U32(list.extract()?),
            "UInt64" => Values::U64(list.extract()?),
            "Int64" => Values::I64(list.extract()?),
            "String" => Values::Text(list.extract()?),
            "Boolean" => Values::Bool(list.extract()?),
            "List(Float64)" => Values::F64Lists(list.extract()?),
            other => {
                return Err(PyValueError::new_err(format!(
                    "column {name}: no Parquet writer for dtype {other}"
                )))
            }
        })
    }
}

/// The column's Parquet type, as polars itself maps the dtype.
fn field(name: &str, values: &Values) -> Result<TypePtr, String> {
    let leaf = |physical, logical| {
        Type::primitive_type_builder(name, physical)
            .with_logical_type(logical)
            .with_repetition(Repetition::OPTIONAL)
            .build()
    };
    let built = match values {
        Values::F64(_) => leaf(Physical::DOUBLE, None),
        Values::U32(_) => leaf(Physical::INT32, Some(LogicalType::integer(32, false))),
        Values::U64(_) => leaf(Physical::INT64, Some(LogicalType::integer(64, false))),
        Values::I64(_) => leaf(Physical::INT64, None),
        Values::Text(_) => leaf(Physical::BYTE_ARRAY, Some(LogicalType::String)),
        Values::Bool(_) => leaf(Physical::BOOLEAN, None),
        Values::F64Lists(_) => {
            // The standard three-level list: optional group (LIST) { repeated group list { optional double element } }.
            let element = Type::primitive_type_builder("element", Physical::DOUBLE)
                .with_repetition(Repetition::OPTIONAL)
                .build();
            let list = element.and_then(|e| {
                Type::group_type_builder("list")
                    .with_repetition(Repetition::REPEATED)
                    .with_fields(vec![Arc::new(e)])
                    .build()
            });
            list.and_then(|l| {
                Type::group_type_builder(name)
                    .with_logical_type(Some(LogicalType::List))
                    .with_repetition(Repetition::OPTIONAL)
                    .with_fields(vec![Arc::new(l)])
                    .build()
            })
        }
    };
    built.map(Arc::new).map_err(|e| e.to_string())
}

/// Definition levels (1 = present, 0 = null) and the present values.
fn flat<T: Clone, U>(values: &[Option<T>], map: impl Fn(&T) -> U) -> (Vec<U>, Vec<i16>) {
    let defs = values.iter().map(|v| v.is_some() as i16).collect();
    (values.iter().flatten().map(map).collect(), defs)
}

fn write<T: DataType>(
    col: &mut SerializedColumnWriter<'_>,
    values: &[T::T],
    defs: &[i16],
    reps: Option<&[i16]>,
) -> parquet::errors::Result<()> {
    col.typed::<T>()
        .write_batch(values, Some(defs), reps)
        .map(|_| ())
}

fn write_column(
    col: &mut SerializedColumnWriter<'_>,
    values: &Values,
) -> parquet::errors::Result<()> {
    match values {
        Values::F64(v) => {
            let (v, d) = flat(v, |x| *x);
            write::<DoubleType>(col, &v, &d, None)
        }
        // Unsigned integers are stored in their signed physical type, bit for bit (the Parquet convention).
        Values::U32(v) => {
            let (v, d) = flat(v, |x| *x as i32);
            write::<Int32Type>(col, &v, &d, None)
        }
        Values::U64(v) => {
            let (v, d) = flat(v, |x| *x as i64);
            write::<Int64Type>(col, &v, &d, None)
        }
        Values::I64(v) => {
            let (v, d) = flat(v, |x| *x);
            write::<Int64Type>(col, &v, &d, None)
        }
        Values::Text(v) => {
            let (v, d) = flat(v, |s| ByteArray::from(s.as_str()));
            write::<ByteArrayType>(col, &v, &d, None)
        }
        Values::Bool(v) => {
            let (v, d) = flat(v, |x| *x);
            write::<BoolType>(col, &v, &d, None)
        }
        Values::F64Lists(rows) => {
            // Levels: 0 null list, 1 empty list, 2 null element, 3 element; repetition 1 continues a row's list.
            let (mut v, mut d, mut r) = (Vec::new(), Vec::new(), Vec::new());
            for row in rows {
                let list = row.as_deref().unwrap_or_default();
                if list.is_empty() {
                    d.push(row.is_some() as i16);
                    r.push(0);
                }
                for (i, x) in list.iter().enumerate() {
                    r.push((i > 0) as i16);
                    d.push(if x.is_some() { 3 } else { 2 });
                    v.extend(x);
                }
            }
            write::<DoubleType>(col, &v, &d, Some(&r))
        }
    }
}

/// A table as a Parquet file: `columns` = [(name, values)], all of one length.
pub fn table<S: AsRef<str>>(columns: &[(S, Values)]) -> Result<Vec<u8>, String> {
    let fields = columns
        .iter()
        .map(|(name, values)| field(name.as_ref(), values))
        .collect::<Result<Vec<_>, _>>()?;
    let schema = Arc::new(
        Type::group_type_builder("schema")
            .with_fields(fields)
            .build()
            .map_err(|e| e.to_string())?,
    );
    // Dictionaries pay off only on long repetitive columns; a run's are short or numeric.
    let props = Arc::new(
        WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_dictionary_enabled(false)
            .set_statistics_enabled(parquet::file::properties::EnabledStatistics::Chunk)
            .build(),
    );
    let mut out = Vec::new();
    let run = || -> parquet::errors::Result<()> {
        let mut file = SerializedFileWriter::new(&mut out, schema, props)?;
        let mut group = file.next_row_group()?;
        for (_, values) in columns {
            let mut col = group.next_column()?.expect("one writer per field");
            write_column(&mut col, values)?;
            col.close()?;
        }
        group.close()?;
        file.close().map(|_| ())
    };
    run().map_err(|e| e.to_string())?;
    Ok(out)
}

/// `table` for Python: the file's bytes, or ValueError naming the column.
#[pyfunction]
pub fn parquet_table(
    py: Python<'_>,
    columns: Vec<(String, String, Bound<'_, PyAny>)>,
) -> PyResult<Py<pyo3::types::PyBytes>> {
    let columns = columns
        .iter()
        .map(|(n, d, v)| Ok((n.clone(), Values::read(n, d, v)?)))
        .collect::<PyResult<Vec<_>>>()?;
    let bytes = py
        .detach(|| table(&columns))
        .map_err(PyValueError::new_err)?;
    Ok(pyo3::types::PyBytes::new(py, &bytes).unbind())
}
