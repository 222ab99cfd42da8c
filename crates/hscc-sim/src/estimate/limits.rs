//! Refusing a run whose estimate passes the limits, in words that name the
//! field to lower.

use crate::config::ConfigError;
use crate::limits::{BuildLimits, MAX_CAPTURE_BYTES, MAX_CC_LOG_BYTES};

use super::origins::Field;
use super::Estimate;

impl Estimate {
    /// Refuse a run above `limits`, naming the field that drives the cost.
    pub fn check(&self, limits: &BuildLimits) -> Result<(), ConfigError> {
        let refuse = |(field, value): &Field, needs: String| ConfigError {
            field: field.clone(),
            value: value.clone(),
            allowed: needs,
        };
        if self.memory.cc_log > MAX_CC_LOG_BYTES {
            let rows: u64 = self.cc_log_rows.iter().map(|r| r.1).sum();
            let needs = format!(
                "the per-ACK log would hold about {:.1e} rows, {}, above the limit of {}; log fewer flows or a shorter run",
                rows as f64,
                bytes(self.memory.cc_log),
                bytes(MAX_CC_LOG_BYTES)
            );
            return Err(refuse(&self.cc_log_field, needs));
        }
        if self.capture_bytes > MAX_CAPTURE_BYTES {
            let needs = format!("the packet captures would take about {}, above the limit of {}; capture fewer flows or links, a shorter run or a smaller snaplen", bytes(self.capture_bytes), bytes(MAX_CAPTURE_BYTES));
            return Err(refuse(&self.capture_field, needs));
        }
        if self.memory_bytes > limits.max_memory_bytes {
            let needs = format!(
                "this run needs about {} of memory, above the limit of {}; lower it or raise --max-memory",
                bytes(self.memory_bytes),
                bytes(limits.max_memory_bytes)
            );
            return Err(refuse(&self.memory_field, needs));
        }
        if self.events > limits.max_events {
            let needs = format!("this run needs about {:.1e} events, above the limit of {:.1e}; lower it or raise --max-events", self.events as f64, limits.max_events as f64);
            return Err(refuse(&self.events_field, needs));
        }
        Ok(())
    }
}

/// 3.7 GB, 512 MB, 64 kB.
fn bytes(b: u64) -> String {
    let b = b as f64;
    match b {
        _ if b >= 1e9 => format!("{:.1} GB", b / 1e9),
        _ if b >= 1e6 => format!("{:.0} MB", b / 1e6),
        _ => format!("{:.0} kB", b / 1e3),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_print_in_units() {
        assert_eq!(bytes(3_700_000_000), "3.7 GB");
        assert_eq!(bytes(512_000_000), "512 MB");
        assert_eq!(bytes(64_000), "64 kB");
    }
}
