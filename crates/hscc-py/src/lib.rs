//! Python bindings: the thinnest layer over hscc-sim. Scenarios cross as JSON
//! (hscc's scenario form in); results as the run directory's files (summary.json
//! and the tables' Parquet files, `run_tables`). The scenario format, its units
//! and its validation live in the engine ([`hscc_sim::scenario`]); the Python
//! package does run directories, plots, sweeps and reports.

#![deny(unsafe_code)]

mod allocator;
mod json;
mod parquet;
mod python_algorithm;
mod run_columns;
mod run_tables;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

use hscc_sim::metrics::{FlowSeries, SignalTrack};
use hscc_sim::scenario::Resolved;
use hscc_sim::tcp::FlowCcLog;
use hscc_sim::{BuildLimits, ConfigError, RunResult, ScenarioSpec, Sim};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// summary.json and each table's (name, Parquet file) as Python bytes (`Simulation.files`).
type PyFiles<'py> = (
    Bound<'py, PyBytes>,
    Vec<(&'static str, Bound<'py, PyBytes>)>,
);

/// A rejected scenario as `ValueError(message, field, value, allowed)`.
fn invalid(e: ConfigError) -> PyErr {
    PyValueError::new_err((e.to_string(), e.field, e.value, e.allowed))
}

/// An engine failure (a bug, never the user's mistake) as `RuntimeError`.
fn engine_failure(panic: Box<dyn std::any::Any + Send>) -> PyErr {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    PyRuntimeError::new_err(format!(
        "the hscc engine failed (please report this with the scenario): {what}"
    ))
}

/// A simulation built from a scenario, run in chunks so that Python can show
/// progress and react to Ctrl-C between them.
#[pyclass(module = "hscc._core")]
struct Simulation {
    sim: Option<Sim>,
    /// The run's name (`name`), if the scenario gives one.
    name: Option<String>,
    /// Every source's label.
    labels: hscc_sim::scenario::Labels,
    /// The finished run's results (`files`), without its logs and captures.
    result: Option<RunResult>,
    /// The per-ACK logs of a finished run, until taken.
    cc_log: Vec<FlowCcLog>,
    /// Packet capture files of the finished run (`take_captures`).
    captures: Vec<(String, Vec<u8>)>,
    /// Whether the run is large enough to hand back what it frees (`allocator`).
    hand_back: bool,
}

#[pymethods]
impl Simulation {
    /// Build from a resolved scenario (`resolve`), or from hscc's JSON scenario
    /// form, resolved here; raises ValueError(message, field, value, allowed)
    /// naming the bad field, also for a run whose estimate passes
    /// `max_memory_bytes` (default 8 GiB) or `max_events` (default 10^11).
    #[new]
    #[pyo3(signature = (scenario, max_memory_bytes=None, max_events=None))]
    fn new(
        scenario: &Bound<'_, PyAny>,
        max_memory_bytes: Option<u64>,
        max_events: Option<u64>,
    ) -> PyResult<Self> {
        let limits = build_limits(max_memory_bytes, max_events);
        let resolved = match scenario.cast::<PyResolved>() {
            Ok(r) => r.get().0.clone(),
            Err(_) => resolve_json(scenario.extract()?)?,
        };
        let sim = resolved.simulation(&limits).map_err(invalid)?;
        let hand_back = resolved.estimate.memory_bytes >= allocator::KEEP_BELOW_BYTES;
        Ok(Simulation {
            sim: Some(sim),
            name: resolved.name().map(str::to_owned),
            labels: resolved.labels,
            result: None,
            cc_log: Vec::new(),
            captures: Vec::new(),
            hand_back,
        })
    }

    /// Advance to `t` seconds of simulated time (at most the duration), without the GIL.
    fn run_until(&mut self, py: Python<'_>, t: f64) -> PyResult<()> {
        let sim = self
            .sim
            .as_mut()
            .ok_or_else(|| PyRuntimeError::new_err("simulation already finished"))?;
        let t = hscc_sim::time::from_secs(t.max(0.0));
        let outcome = py.detach(|| catch_unwind(AssertUnwindSafe(|| sim.run_until(t))));
        // A user's program failed in a hook: the run stopped there (ValueError:
        // the program's mistake, not the engine's).
        let fault = sim.program_fault().map(str::to_string);
        outcome.map_err(|panic| {
            self.sim = None; // its state is no longer trustworthy
            engine_failure(panic)
        })?;
        match fault {
            Some(f) => Err(PyValueError::new_err(f)),
            None => Ok(()),
        }
    }

    /// Current simulated time, s.
    #[getter]
    fn now(&self) -> f64 {
        self.sim
            .as_ref()
            .map_or(0.0, |s| hscc_sim::time::secs(s.net.now))
    }

    /// Configured duration, s.
    #[getter]
    fn duration(&self) -> f64 {
        self.sim
            .as_ref()
            .map_or(0.0, |s| hscc_sim::time::secs(s.cfg.duration))
    }

    /// Events processed so far (all of them, once finished).
    #[getter]
    fn events(&self) -> u64 {
        self.sim
            .as_ref()
            .map(|s| s.events)
            .or(self.result.as_ref().map(|r| r.events))
            .unwrap_or(0)
    }

    /// End the run and summarise it (`files` then writes the results); the simulation cannot run further.
    fn finish(&mut self, py: Python<'_>) -> PyResult<()> {
        let sim = self
            .sim
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("simulation already finished"))?;
        let hand_back = self.hand_back;
        let finish = || {
            let mut r = sim.finish();
            if hand_back {
                allocator::return_freed_memory();
            }
            let files = std::mem::take(&mut r.captures.files);
            let cc_log = std::mem::take(&mut r.cc_log);
            (r, cc_log, files)
        };
        let (result, cc_log, captures) = py
            .detach(|| catch_unwind(AssertUnwindSafe(finish)))
            .map_err(engine_failure)?;
        self.result = Some(result);
        self.cc_log = cc_log;
        self.captures = captures;
        Ok(())
    }

    /// The label of every TCP flow, in engine order.
    fn flow_labels(&self) -> Vec<String> {
        self.labels
            .tcp
            .iter()
            .map(|(_, label)| label.clone())
            .collect()
    }

    /// The finished run's summary.json and its tables' Parquet files
    /// ([(table, bytes)] in the run directory's order; `run_tables`), given what
    /// the engine does not know: the run's wall time, whether the flows' and
    /// queues' traces are tables, and the capture files' names; with `tables`,
    /// only those tables' files (a sweep's worker that stores nothing).
    #[pyo3(signature = (wall_time_s, flow_traces, queue_traces, captures, tables=None))]
    fn files<'py>(
        &self,
        py: Python<'py>,
        wall_time_s: f64,
        flow_traces: bool,
        queue_traces: bool,
        mut captures: Vec<String>,
        tables: Option<Vec<String>>,
    ) -> PyResult<PyFiles<'py>> {
        let r = self
            .result
            .as_ref()
            .ok_or_else(|| PyRuntimeError::new_err("the simulation has not finished"))?;
        captures.sort();
        let cx = run_tables::Context {
            name: self.name.clone(),
            wall_time_s,
            flows: &self.labels.tcp,
            udp: self.labels.udp.clone(),
            web: self.labels.web.clone(),
            flow_traces,
            queue_traces,
            captures,
        };
        let (summary, tables) = py
            .detach(|| run_tables::files(r, &cx, tables.as_deref()))
            .map_err(PyRuntimeError::new_err)?;
        let files = (
            PyBytes::new(py, &summary),
            tables
                .into_iter()
                .map(|(n, b)| (n, PyBytes::new(py, &b)))
                .collect(),
        );
        drop(summary);
        // Python holds the files now: the columns and bytes they were made from go back.
        if self.hand_back {
            allocator::return_freed_memory();
        }
        Ok(files)
    }

    /// The captured links' drop logs of the finished run, JSON rows (empty without captures).
    fn capture_drops(&self) -> PyResult<String> {
        let r = self
            .result
            .as_ref()
            .ok_or_else(|| PyRuntimeError::new_err("the simulation has not finished"))?;
        Ok(serde_json::to_string(&r.captures.drops).expect("plain data"))
    }

    /// The per-ACK congestion-control log of the finished run as columns
    /// [(name, numpy dtype, little-endian bytes)] (`hscc_sim::tcp::cc_log::columns`;
    /// codes as `cc_log_names` lists them), or None when no flow was logged.
    /// Taken: a second call returns None.
    fn take_cc_log<'py>(
        &mut self,
        py: Python<'py>,
    ) -> Option<Vec<(&'static str, &'static str, Bound<'py, PyBytes>)>> {
        let logs = std::mem::take(&mut self.cc_log);
        if logs.is_empty() {
            return None;
        }
        let columns = py.detach(|| {
            let cols = hscc_sim::tcp::cc_log::columns(&logs);
            drop(logs);
            cols.into_iter()
                .map(|(name, c)| (name, c.dtype(), c.to_le_bytes()))
                .collect::<Vec<_>>()
        });
        Some(
            columns
                .into_iter()
                .map(|(name, dtype, bytes)| (name, dtype, PyBytes::new(py, &bytes)))
                .collect(),
        )
    }

    /// The packet capture files of the finished run, [(file name, pcap bytes)],
    /// handed over once (the engine keeps no copy).
    fn take_captures<'py>(&mut self, py: Python<'py>) -> Vec<(String, Bound<'py, PyBytes>)> {
        std::mem::take(&mut self.captures)
            .into_iter()
            .map(|(name, data)| (name, PyBytes::new(py, &data)))
            .collect()
    }
}

/// A scenario checked in full, with what the engine derived from it: made
/// once per run (`resolve`) and handed to `Simulation`.
#[pyclass(module = "hscc._core", name = "Resolved", frozen)]
struct PyResolved(Resolved, OnceLock<String>);

#[pymethods]
impl PyResolved {
    /// The scenario with every default filled in and every quantity in SI numbers, JSON.
    #[getter]
    fn scenario(&self) -> &str {
        self.1.get_or_init(|| self.0.normalized())
    }

    /// The topology's kind: "dumbbell", "parking_lot" or "graph".
    #[getter]
    fn topology(&self) -> &'static str {
        use hscc_sim::scenario::spec::TopologySpec;
        match self.0.spec().topology {
            TopologySpec::Dumbbell(_) => "dumbbell",
            TopologySpec::ParkingLot(_) => "parking_lot",
            TopologySpec::Graph(_) => "graph",
        }
    }

    /// The run's length, s.
    #[getter]
    fn duration(&self) -> f64 {
        self.0.spec().duration.0
    }

    /// The engine configuration (topology with resolved buffers and routes, flows), JSON.
    fn config(&self) -> String {
        serde_json::to_string(&self.0.config).expect("plain data")
    }

    /// What the run would cost, JSON: {"memory_bytes", "events", "memory": {part:
    /// bytes}, "events_by": {part: count}, "memory_field": [field, value],
    /// "events_field": [field, value], ...}.
    fn estimate(&self) -> String {
        serde_json::to_string(&self.0.estimate).expect("plain data")
    }

    /// Refuse a run whose estimate passes the limits (the engine's defaults
    /// where not given): ValueError(message, field, value, allowed).
    #[pyo3(signature = (max_memory_bytes=None, max_events=None))]
    fn check(&self, max_memory_bytes: Option<u64>, max_events: Option<u64>) -> PyResult<()> {
        self.0
            .check(&build_limits(max_memory_bytes, max_events))
            .map_err(invalid)
    }

    /// (index in `flows`, label) of every TCP flow, counts expanded, in engine order.
    #[getter]
    fn tcp_labels(&self) -> Vec<(u32, String)> {
        self.0.labels.tcp.clone()
    }

    /// (source, label) of every UDP flow: `[[udp]]` entries, then two per `[[voip]]` call.
    #[getter]
    fn udp_labels(&self) -> Vec<(String, String)> {
        self.0.labels.udp.clone()
    }

    /// The label of every `[[web]]` source.
    #[getter]
    fn web_labels(&self) -> Vec<String> {
        self.0.labels.web.clone()
    }

    /// What each flow entry's `stack` profile set, JSON: [{"flow": index in `flows`,
    /// "stack", "settings": [{"knob", "value", "algorithm", "source"}], "overridden":
    /// [[knob, the scenario's value]]}], one per entry that takes a profile.
    #[getter]
    fn stacks(&self) -> String {
        serde_json::to_string(&self.0.stacks).expect("plain data")
    }
}

fn resolve_json(scenario_json: &str) -> PyResult<Resolved> {
    ScenarioSpec::from_json(scenario_json)
        .and_then(|s| s.resolve())
        .map_err(invalid)
}

/// The limits a run must fit, the engine's defaults where not given.
fn build_limits(max_memory_bytes: Option<u64>, max_events: Option<u64>) -> BuildLimits {
    let d = BuildLimits::default();
    BuildLimits {
        max_memory_bytes: max_memory_bytes.unwrap_or(d.max_memory_bytes),
        max_events: max_events.unwrap_or(d.max_events),
    }
}

/// Check a scenario (JSON, units allowed) in full — against the engine's hard
/// caps, not a run's limits (`Resolved.check`) — and derive what a run needs:
/// the one step between a scenario and its run. Raises ValueError(message,
/// field, value, allowed).
#[pyfunction]
fn resolve(scenario_json: &str) -> PyResult<PyResolved> {
    resolve_json(scenario_json).map(|r| PyResolved(r, OnceLock::new()))
}

/// `value` made a run name, as the engine's `name` rule allows: characters a file
/// name cannot have become "_", leading dots go, at most 100 characters ("scenario" if empty).
#[pyfunction]
fn safe_file_name(value: &str) -> String {
    hscc_sim::scenario::safe_file_name(value)
}

/// Where built programs are kept (`hscc_program::cache_dir`): `$HSCC_CACHE_DIR`,
/// else `$XDG_CACHE_HOME/hscc`, else `~/.cache/hscc`; then `programs`.
#[pyfunction]
fn program_cache_dir() -> String {
    hscc_program::cache_dir().to_string_lossy().into_owned()
}

/// (label name, kernel name, [(parameter, size in bytes, default)]).
type ProgramInfo = (String, String, Vec<(String, u8, i64)>);

/// A program file built for the simulator and loaded: (the name its flows
/// are labelled with, the kernel name in its ops, [(parameter, size in bytes,
/// default)]); ValueError with the compiler's or loader's message.
#[pyfunction]
fn program_info(path: &str) -> PyResult<ProgramInfo> {
    use hscc_cc::ExternalProgram as _;
    let p = hscc_program::load(std::path::Path::new(path)).map_err(PyValueError::new_err)?;
    let kernel = p.kernel_name().map_err(PyValueError::new_err)?;
    let params = p
        .params()
        .iter()
        .map(|q| (q.name.clone(), q.size, q.default as i64))
        .collect();
    Ok((p.name().to_string(), kernel, params))
}

/// Scenario builds and estimates this process has made, (builds, estimates).
#[pyfunction]
fn work_counts() -> (u64, u64) {
    hscc_sim::scenario::work_counts()
}

/// The JSON Schema of scenario files, every field with its doc text.
#[pyfunction]
fn scenario_schema() -> String {
    hscc_sim::scenario::schema()
}

/// The reference-stack profiles (`stack`), JSON: [{"name", "about", "settings":
/// [{"knob", "value", "algorithm", "source"}]}], each value JSON as a scenario writes it.
#[pyfunction]
fn stack_profiles() -> String {
    hscc_sim::scenario::profiles_json()
}

/// One quantity (JSON: a number or a string with a unit) of `kind` ("time",
/// "rate", "size", "probability", "buffer") in SI numbers, as JSON; raises
/// ValueError(message) saying what is allowed.
#[pyfunction]
fn quantity(kind: &str, value_json: &str) -> PyResult<String> {
    use hscc_sim::scenario::quantity::{BufferSpec, Bytes, Probability, Rate, Seconds};
    fn read<T: serde::de::DeserializeOwned + serde::Serialize>(json: &str) -> PyResult<String> {
        let v: T = hscc_sim::scenario::from_value_json(json)
            .map_err(|e| PyValueError::new_err(e.allowed))?;
        Ok(serde_json::to_string(&v).expect("plain data"))
    }
    match kind {
        "time" => read::<Seconds>(value_json),
        "rate" => read::<Rate>(value_json),
        "size" => read::<Bytes>(value_json),
        "probability" => read::<Probability>(value_json),
        "buffer" => read::<BufferSpec>(value_json),
        other => Err(PyValueError::new_err(format!(
            "unknown quantity kind {other:?}"
        ))),
    }
}

/// Every algorithm with its parameters (defaults, ranges, sources), JSON.
#[pyfunction]
fn algorithms() -> String {
    serde_json::to_string(&hscc_cc::algorithms()).expect("plain data")
}

/// The load-time globals of `algorithm`'s eBPF program (bpf/NAME.bpf.c)
/// for the parameters `params_json` (an object of name → number), validated
/// as a scenario's are: hscc-cc's `Cc::bpf_globals`, the one conversion from
/// parameters to the programs' fixed point. `ValueError` names what is wrong.
#[pyfunction]
fn bpf_globals(algorithm: &str, params_json: &str) -> PyResult<Vec<(String, i64)>> {
    let params: std::collections::BTreeMap<String, f64> = serde_json::from_str(params_json)
        .map_err(|e| PyValueError::new_err(format!("parameters: {e}")))?;
    let overrides: Vec<(&str, f64)> = params.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    let p = hscc_cc::CcParams::with(algorithm, &overrides)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(hscc_cc::Cc::new(&p)
        .bpf_globals()
        .into_iter()
        .map(|(n, v)| (n.to_string(), v))
        .collect())
}

/// Jain's fairness index of `values`: (Σx)² / (n·Σx²); None without values
/// or with all of them zero (undefined: no flows, or no traffic).
#[pyfunction]
fn jain_index(values: Vec<f64>) -> Option<f64> {
    hscc_sim::metrics::jain_index(&values)
}

/// Bandwidth stolen, (P − Q)/P, from the other flows' aggregate goodput P in
/// the baseline and Q in the test; 0 when P is 0.
#[pyfunction]
fn stolen_share(p: f64, q: f64) -> f64 {
    hscc_sim::metrics::stolen_share(p, q)
}

/// Sync-TCP's short-term fairness: the mean Jain index over windows of
/// `window` s from `start` on; `flows` = [(throughput per sample, start, end)].
#[pyfunction]
fn short_term_jain(
    times: Vec<f64>,
    dt: f64,
    flows: Vec<(Vec<f64>, f64, f64)>,
    window: f64,
    start: f64,
) -> Option<f64> {
    let series: Vec<FlowSeries> = flows
        .iter()
        .map(|(t, s, e)| FlowSeries {
            throughput: t,
            start: *s,
            end: *e,
        })
        .collect();
    hscc_sim::metrics::short_term_jain(&times, dt, &series, window, start)
}

/// Congestion events among the signals of the flows `chosen` (positions in
/// `flows` = [(algorithm, signal times, start, end)]; by default those whose
/// algorithm reports delay signals) grouped within `window` s, and how many
/// every active flow saw.
#[pyfunction]
#[pyo3(signature = (flows, chosen, window))]
fn signal_synchronization(
    flows: Vec<(String, Vec<f64>, f64, f64)>,
    chosen: Option<Vec<usize>>,
    window: f64,
) -> PyResult<(u64, u64)> {
    let chosen = chosen.unwrap_or_else(|| {
        hscc_sim::metrics::signalling_flows(flows.iter().map(|f| (f.0.as_str(), !f.1.is_empty())))
    });
    if let Some(&bad) = chosen.iter().find(|&&i| i >= flows.len()) {
        return Err(PyValueError::new_err(format!(
            "flows: {bad} is not a flow of this run (0 to {})",
            flows.len().saturating_sub(1)
        )));
    }
    let tracks: Vec<SignalTrack> = chosen
        .iter()
        .map(|&i| SignalTrack {
            times: &flows[i].1,
            start: flows[i].2,
            end: flows[i].3,
        })
        .collect();
    let r = hscc_sim::metrics::synchronization(&tracks, window);
    Ok((r.events, r.seen_by_all))
}

/// Names of the per-ACK log's codes: (hook, ca_state and new_state, event), by code.
#[pyfunction]
fn cc_log_names() -> (Vec<&'static str>, Vec<&'static str>, Vec<&'static str>) {
    use hscc_cc::trace::{Hook, CA_EVENT_NAMES, CA_STATE_NAMES};
    (
        Hook::NAMES.to_vec(),
        CA_STATE_NAMES.to_vec(),
        CA_EVENT_NAMES.to_vec(),
    )
}

/// `json.dumps(data, indent=2) + "\n"` as bytes, from `json.dumps(data, separators=(",", ":"))`:
/// the same text, byte for byte, five times faster (Python indents only in pure Python).
#[pyfunction]
fn json_indented<'py>(py: Python<'py>, compact: &str) -> Bound<'py, PyBytes> {
    PyBytes::new(py, &json::indent(compact, 2))
}

/// The columns of a run directory's tables as hscc writes them: [(table, [(column, polars dtype)])].
#[pyfunction]
fn table_schemas() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    run_tables::schemas()
}

/// What each table's columns mean: [(table, what a row is, [(column, meaning)])].
#[pyfunction]
fn table_columns() -> Vec<run_columns::Table> {
    run_columns::TABLES.to_vec()
}

/// Version of the engine.
#[pyfunction]
fn engine_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Digest of the engine's and the algorithms' sources this build was made
/// from (build.rs): two builds with the same digest compute the same numbers.
#[pyfunction]
fn engine_digest() -> &'static str {
    env!("HSCC_ENGINE_DIGEST")
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    m.add_class::<PyResolved>()?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(safe_file_name, m)?)?;
    m.add_function(wrap_pyfunction!(work_counts, m)?)?;
    m.add_function(wrap_pyfunction!(program_info, m)?)?;
    m.add_function(wrap_pyfunction!(program_cache_dir, m)?)?;
    m.add_function(wrap_pyfunction!(python_algorithm::register_algorithm, m)?)?;
    m.add_class::<python_algorithm::Sock>()?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_schema, m)?)?;
    m.add_function(wrap_pyfunction!(stack_profiles, m)?)?;
    m.add_function(wrap_pyfunction!(quantity, m)?)?;
    m.add_function(wrap_pyfunction!(engine_version, m)?)?;
    m.add_function(wrap_pyfunction!(engine_digest, m)?)?;
    m.add_function(wrap_pyfunction!(jain_index, m)?)?;
    m.add_function(wrap_pyfunction!(stolen_share, m)?)?;
    m.add_function(wrap_pyfunction!(bpf_globals, m)?)?;
    m.add_function(wrap_pyfunction!(short_term_jain, m)?)?;
    m.add_function(wrap_pyfunction!(signal_synchronization, m)?)?;
    m.add_function(wrap_pyfunction!(cc_log_names, m)?)?;
    m.add_function(wrap_pyfunction!(parquet::parquet_table, m)?)?;
    m.add_function(wrap_pyfunction!(json_indented, m)?)?;
    m.add_function(wrap_pyfunction!(table_schemas, m)?)?;
    m.add_function(wrap_pyfunction!(table_columns, m)?)?;
    Ok(())
}
