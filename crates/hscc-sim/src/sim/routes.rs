//! Routes between node pairs, computed on first use.

use std::collections::HashMap;

use crate::config::{ConfigError, Topology};

/// Shortest paths between node pairs, computed once per pair.
#[derive(Debug, Default)]
pub struct Routes {
    paths: Vec<Vec<u32>>,
    index: HashMap<(u32, u32), u32>,
}

impl Routes {
    /// Route id from `src` to `dst`.
    pub fn get(&mut self, t: &Topology, src: u32, dst: u32) -> Result<u32, ConfigError> {
        if let Some(&id) = self.index.get(&(src, dst)) {
            return Ok(id);
        }
        let path = t.route(src, dst)?;
        self.paths.push(path);
        let id = self.paths.len() as u32 - 1;
        self.index.insert((src, dst), id);
        Ok(id)
    }

    /// The links of route `id`.
    #[inline]
    pub fn path(&self, id: u32) -> &[u32] {
        &self.paths[id as usize]
    }
}
