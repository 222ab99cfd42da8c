//! The run's invariants, checked by the tests: packet conservation, each
//! sender's scoreboard and the host lines' count of held segments.

use super::Sim;

impl Sim {
    /// Check packet conservation: injected = delivered + dropped + in the network.
    pub fn check_conservation(&self) -> Result<(), String> {
        let c = self.net.counters;
        // Packets a queue discipline dropped after accepting them (at dequeue, or FQ-CoDel's fat flow).
        let queued: u64 = self
            .net
            .links
            .iter()
            .map(|l| l.queued_drops().packets)
            .sum();
        let rhs = c.delivered + c.dropped_queue + queued + c.dropped_random + self.in_network();
        if c.injected != rhs {
            return Err(format!(
                "injected {} != delivered {} + dropped {}+{}+{} + in network {}",
                c.injected,
                c.delivered,
                c.dropped_queue,
                queued,
                c.dropped_random,
                self.in_network()
            ));
        }
        for (i, f) in self.flows.iter().enumerate() {
            f.sender
                .check_scoreboard()
                .map_err(|e| format!("flow {i}: {e}"))?;
        }
        // Every segment a flow counts as held is in the host line (and the
        // others there belong to finished web transfers).
        let mut held = vec![0u32; self.flows.len()];
        for p in self
            .host_out
            .packets()
            .chain(self.lazy_lines.iter().flat_map(|l| l.packets()))
            .filter(|p| p.gen == self.flows[p.flow as usize].gen)
        {
            held[p.flow as usize] += 1;
        }
        if let Some((i, f)) = self
            .flows
            .iter()
            .enumerate()
            .find(|(i, f)| f.held != held[*i])
        {
            return Err(format!(
                "flow {i}: {} segments counted as held at the host, {} there",
                f.held, held[i]
            ));
        }
        Ok(())
    }
}
