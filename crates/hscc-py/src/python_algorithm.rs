//! A congestion control written in Python (`hscc.Algorithm`), for
//! prototyping: registered by name in this process, run by the simulator
//! behind hscc-cc's `ExternalOps` like a program file. Each hook takes the
//! GIL and calls the instance's method with a [`Sock`], the sender's view;
//! what the kernel lets a program write comes back (snd_cwnd, snd_cwnd_cnt,
//! snd_ssthresh, the pacing rate). An exception stops the run with the class,
//! the hook and the exception.

use std::sync::Arc;

use hscc_cc::{
    AckSample, CaEvent, CaState, ExternalOps, ExternalParam, ExternalProgram, ExternalRegistration,
    RateSample, TcpCc,
};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The sender's view a Python hook sees: Linux's `tcp_sock` fields, by name.
#[pyclass(module = "hscc._core")]
pub struct Sock {
    tp: TcpCc,
}

#[pymethods]
impl Sock {
    #[getter]
    fn snd_cwnd(&self) -> u64 {
        self.tp.snd_cwnd as u64
    }
    #[getter]
    fn snd_ssthresh(&self) -> u64 {
        self.tp.snd_ssthresh as u64
    }
    #[getter]
    fn snd_cwnd_cnt(&self) -> u64 {
        self.tp.snd_cwnd_cnt as u64
    }
    #[getter]
    fn snd_cwnd_clamp(&self) -> u64 {
        self.tp.snd_cwnd_clamp as u64
    }
    #[getter]
    fn prior_cwnd(&self) -> u64 {
        self.tp.prior_cwnd as u64
    }
    #[getter]
    fn mss_cache(&self) -> u64 {
        self.tp.mss_cache as u64
    }
    #[getter]
    fn srtt_us(&self) -> u64 {
        self.tp.srtt_us as u64
    }
    #[getter]
    fn min_rtt_us(&self) -> u64 {
        self.tp.min_rtt_us as u64
    }
    #[getter]
    fn snd_una(&self) -> u64 {
        self.tp.snd_una as u64
    }
    #[getter]
    fn snd_nxt(&self) -> u64 {
        self.tp.snd_nxt as u64
    }
    #[getter]
    fn packets_out(&self) -> u64 {
        self.tp.packets_out as u64
    }
    #[getter]
    fn sacked_out(&self) -> u64 {
        self.tp.sacked_out as u64
    }
    #[getter]
    fn lost_out(&self) -> u64 {
        self.tp.lost_out as u64
    }
    #[getter]
    fn retrans_out(&self) -> u64 {
        self.tp.retrans_out as u64
    }
    #[getter]
    fn delivered(&self) -> u64 {
        self.tp.delivered as u64
    }
    #[getter]
    fn lost(&self) -> u64 {
        self.tp.lost as u64
    }
    #[getter]
    fn max_packets_out(&self) -> u64 {
        self.tp.max_packets_out as u64
    }
    #[getter]
    fn now_us(&self) -> u64 {
        self.tp.now_us
    }
    #[getter]
    fn lsndtime(&self) -> u64 {
        self.tp.lsndtime as u64
    }
    /// The last ACK's TSval: the receiver's clock when it sent it, ms.
    #[getter]
    fn rcv_tsval(&self) -> u64 {
        self.tp.rcv_tsval as u64
    }
    /// The last ACK's TSecr: this sender's clock when it sent the segment echoed, ms.
    #[getter]
    fn rcv_tsecr(&self) -> u64 {
        self.tp.rcv_tsecr as u64
    }
    #[getter]
    fn pacing_rate(&self) -> u64 {
        self.tp.pacing_rate
    }
    #[setter]
    fn set_snd_cwnd(&mut self, v: u32) {
        self.tp.snd_cwnd = v;
    }
    #[setter]
    fn set_snd_ssthresh(&mut self, v: u32) {
        self.tp.snd_ssthresh = v;
    }
    #[setter]
    fn set_snd_cwnd_cnt(&mut self, v: u32) {
        self.tp.snd_cwnd_cnt = v;
    }
    /// The congestion state: "open", "disorder", "cwr", "recovery" or "loss".
    #[getter]
    fn ca_state(&self) -> &'static str {
        match self.tp.ca_state {
            CaState::Open => "open",
            CaState::Disorder => "disorder",
            CaState::Cwr => "cwr",
            CaState::Recovery => "recovery",
            CaState::Loss => "loss",
        }
    }
    /// Linux `tcp_in_slow_start`.
    fn in_slow_start(&self) -> bool {
        self.tp.in_slow_start()
    }
    /// Linux `tcp_is_cwnd_limited`.
    fn is_cwnd_limited(&self) -> bool {
        self.tp.is_cwnd_limited()
    }
    /// The kfunc `tcp_slow_start`: grow by `acked` up to ssthresh; returns what is left.
    fn slow_start(&mut self, acked: u32) -> u32 {
        hscc_cc::helpers::tcp_slow_start(&mut self.tp, acked)
    }
    /// The kfunc `tcp_cong_avoid_ai`: +1 segment per `w` segments ACKed.
    fn cong_avoid_ai(&mut self, w: u32, acked: u32) {
        hscc_cc::helpers::tcp_cong_avoid_ai(&mut self.tp, w, acked);
    }
    /// The pacing rate, bytes per second (0: unpaced).
    #[setter]
    fn set_pacing_rate(&mut self, v: u64) {
        self.tp.pacing_rate = v;
    }
}

/// A Python class registered as an algorithm.
#[derive(Debug)]
pub struct PyProgram {
    name: &'static str,
    origin: String,
    class: Py<PyAny>,
    params: Vec<ExternalParam>,
}

impl ExternalProgram for PyProgram {
    fn name(&self) -> &'static str {
        self.name
    }
    fn origin(&self) -> &str {
        &self.origin
    }
    fn params(&self) -> &[ExternalParam] {
        &self.params
    }
    fn has_cong_control(&self) -> bool {
        false
    }
    fn register(&self, values: &[(String, f64)]) -> Result<Arc<dyn ExternalRegistration>, String> {
        Ok(Arc::new(PyRegistration {
            name: self.name,
            class: Python::attach(|py| self.class.clone_ref(py)),
            values: values.to_vec(),
        }))
    }
}

#[derive(Debug)]
struct PyRegistration {
    name: &'static str,
    class: Py<PyAny>,
    values: Vec<(String, f64)>,
}

impl ExternalRegistration for PyRegistration {
    fn connect(self: Arc<Self>) -> Box<dyn ExternalOps> {
        let made = Python::attach(|py| -> PyResult<Py<PyAny>> {
            let kwargs = PyDict::new(py);
            for (k, v) in &self.values {
                kwargs.set_item(k, v)?;
            }
            Ok(self.class.bind(py).call((), Some(&kwargs))?.unbind())
        });
        match made {
            Ok(obj) => Box::new(PyConnection {
                name: self.name,
                obj: Some(obj),
                fault: None,
            }),
            Err(e) => Box::new(PyConnection {
                name: self.name,
                obj: None,
                fault: Some(format!("{}: creating the algorithm failed: {e}", self.name)),
            }),
        }
    }
}

#[derive(Debug)]
struct PyConnection {
    name: &'static str,
    obj: Option<Py<PyAny>>,
    fault: Option<String>,
}

impl PyConnection {
    /// Call `hook(sock, *args)`; `None` when it raised (recorded) or an
    /// earlier hook did. The window comes back from the Sock.
    fn call(
        &mut self,
        tp: &mut TcpCc,
        hook: &str,
        args: impl FnOnce(Python<'_>) -> Vec<Bound<'_, PyAny>>,
    ) -> Option<Option<u64>> {
        let obj = self.obj.as_ref().filter(|_| self.fault.is_none())?;
        let r = Python::attach(|py| -> PyResult<(Option<u64>, TcpCc)> {
            let sock = Bound::new(py, Sock { tp: tp.clone() })?;
            let mut all = vec![sock.clone().into_any()];
            all.extend(args(py));
            let tuple = pyo3::types::PyTuple::new(py, all)?;
            let out = obj.bind(py).call_method1(hook, tuple)?;
            let ret = if out.is_none() {
                None
            } else {
                Some(out.extract::<u64>()?)
            };
            let tp_out = sock.borrow().tp.clone();
            Ok((ret, tp_out))
        });
        match r {
            Ok((ret, out)) => {
                if out.snd_cwnd == 0 || out.snd_cwnd > out.snd_cwnd_clamp {
                    self.fault = Some(format!(
                        "{}: {hook} set snd_cwnd to {}, outside [1, snd_cwnd_clamp = {}]",
                        self.name, out.snd_cwnd, out.snd_cwnd_clamp
                    ));
                    return None;
                }
                tp.snd_cwnd = out.snd_cwnd;
                tp.snd_cwnd_cnt = out.snd_cwnd_cnt;
                tp.snd_ssthresh = out.snd_ssthresh;
                tp.pacing_rate = out.pacing_rate;
                Some(ret)
            }
            Err(e) => {
                self.fault = Some(format!("{}: {hook} raised {e}", self.name));
                None
            }
        }
    }

    fn window(&mut self, tp: &mut TcpCc, hook: &str, fallback: u32) -> u32 {
        match self.call(tp, hook, |_| Vec::new()) {
            Some(Some(w)) if w >= 1 && w <= u32::MAX as u64 => w as u32,
            Some(other) => {
                self.fault = Some(format!(
                    "{}: {hook} returned {}; a window is a whole number of segments, at least 1",
                    self.name,
                    other.map_or("None".to_string(), |w| w.to_string())
                ));
                fallback
            }
            None => fallback,
        }
    }
}

impl ExternalOps for PyConnection {
    fn init(&mut self, tp: &mut TcpCc) {
        self.call(tp, "init", |_| Vec::new());
    }
    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        let fallback = tp.snd_ssthresh;
        self.window(tp, "ssthresh", fallback)
    }
    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32) {
        self.call(tp, "cong_avoid", |py| {
            vec![
                ack.into_pyobject(py).unwrap().into_any(),
                acked.into_pyobject(py).unwrap().into_any(),
            ]
        });
    }
    fn set_state(&mut self, tp: &mut TcpCc, s: CaState) {
        self.call(tp, "set_state", |py| {
            vec![(s as u32).into_pyobject(py).unwrap().into_any()]
        });
    }
    fn cwnd_event(&mut self, tp: &mut TcpCc, ev: CaEvent) {
        self.call(tp, "cwnd_event", |py| {
            vec![(ev as u32).into_pyobject(py).unwrap().into_any()]
        });
    }
    fn in_ack_event(&mut self, tp: &mut TcpCc, flags: u32) {
        self.call(tp, "in_ack_event", |py| {
            vec![flags.into_pyobject(py).unwrap().into_any()]
        });
    }
    fn pkts_acked(&mut self, tp: &mut TcpCc, s: &AckSample) {
        self.call(tp, "pkts_acked", |py| {
            vec![
                s.pkts_acked.into_pyobject(py).unwrap().into_any(),
                s.rtt_us.into_pyobject(py).unwrap().into_any(),
            ]
        });
    }
    fn undo_cwnd(&mut self, tp: &mut TcpCc) -> u32 {
        let fallback = tp.snd_cwnd;
        self.window(tp, "undo_cwnd", fallback)
    }
    fn cong_control(&mut self, _tp: &mut TcpCc, _rs: &RateSample) -> bool {
        false
    }
    fn has_cong_control(&self) -> bool {
        false
    }
    fn fault(&self) -> Option<String> {
        self.fault.clone()
    }
    fn clone_box(&self) -> Box<dyn ExternalOps> {
        // A probe's copy: it must not call back into Python.
        Box::new(PyConnection {
            name: self.name,
            obj: None,
            fault: self.fault.clone(),
        })
    }
}

/// Register the class `algorithm` (an `hscc.Algorithm`) as the algorithm `name`
/// with parameters (name, default), replacing one of that name.
#[pyfunction]
pub fn register_algorithm(
    name: &str,
    origin: &str,
    algorithm: Py<PyAny>,
    params: Vec<(String, f64)>,
) -> PyResult<()> {
    if hscc_cc::CcParams::from_name(name).is_ok() {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "{name} is a built-in algorithm's name; give the class another name"
        )));
    }
    let params = params
        .into_iter()
        .map(|(name, default)| ExternalParam {
            name,
            size: 0,
            default,
        })
        .collect();
    hscc_cc::external::register_named(Arc::new(PyProgram {
        name: hscc_cc::external::interned(name),
        origin: origin.to_string(),
        class: algorithm,
        params,
    }));
    Ok(())
}
