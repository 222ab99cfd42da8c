//! The sizes the model charges, in bytes (or characters of JSON), where no
//! `size_of` gives them directly.

use std::mem::size_of;

/// Growable buffers hold about 1.5× their content (a ratio).
pub(super) const GROW: f64 = 1.5;
/// A packet in a link FIFO, bytes.
pub(super) const PACKET: f64 = size_of::<crate::packet::Packet>() as f64;
/// A queued packet's start-time entry, bytes.
pub(super) const QUEUED: f64 = 16.0;
/// A scoreboard entry (send time and flags), bytes.
pub(super) const SEGMENT: f64 = 16.0;
/// A packet in a reordering link's heap (its key and the packet), bytes.
pub(super) const PROPAGATING: f64 = 80.0;
/// A web session in progress and its pending step, bytes.
pub(super) const SESSION: f64 = 96.0;
/// A delay histogram, 1 ns to 1000 s at 3 significant digits: 31 × 1024 u64 counts, bytes.
pub(super) const DELAY_HISTOGRAM: f64 = 31.0 * 1024.0 * 8.0;
/// A web response-time histogram, 1 ns to 10^4 s: 35 × 1024 u64 counts, bytes.
pub(super) const WEB_HISTOGRAM: f64 = 35.0 * 1024.0 * 8.0;
/// An event-queue entry, bytes.
pub(super) const QUEUE_ENTRY: f64 = 32.0;
/// JSON characters (bytes) per trace value.
pub(super) const JSON_PER_VALUE: f64 = 14.0;
/// summary.json's row of a flow, indented, bytes.
pub(super) const SUMMARY_PER_FLOW: f64 = 800.0;
/// summary.json's row of a link, indented, bytes.
pub(super) const SUMMARY_PER_LINK: f64 = 650.0;
/// summary.json's rows while the engine writes them, over their text (a ratio): the
/// rows as columns and the text as it grows (measured: the whole process grows by
/// 23 MB for the 16 MB of 20 000 flows' rows, besides Python's bytes of them).
pub(super) const ROWS_AS_WRITTEN: f64 = 1.4;
/// summary.json's text in Python, over its size (a ratio): the bytes the engine
/// hands over and the text `json.loads` decodes from them.
pub(super) const TEXT_IN_PYTHON: f64 = 2.0;
/// The objects Python reads back from a flow's row of summary.json, over the row's
/// text (a ratio; measured with tracemalloc: 1.69 for 100 000 flows' rows).
pub(super) const FLOW_ROW_OBJECTS: f64 = 1.7;
/// The objects Python reads back from a link's row of summary.json, over the row's
/// text (a ratio; measured with tracemalloc: 2.04 for 26 940 links' rows).
pub(super) const LINK_ROW_OBJECTS: f64 = 2.0;
/// The scenario's text in memory, over its size (a ratio): manifest.json's copy,
/// its compact and indented text, the tables Python reads it into (measured: 100 000
/// `[[flows]]` entries of a flow each peak 560 MB, 6.4 times their 88 MB in
/// manifest.json, above one entry of 100 000 flows, when the engine's allocator
/// hands nothing back).
pub(super) const SCENARIO_IN_MEMORY: f64 = 7.0;
/// A flow's resolved configuration besides its `FlowConfig`: its algorithm's
/// parameters and its label (measured with a counting allocator: a resolved
/// scenario holds 467 bytes a flow, 320 of them the `FlowConfig`), bytes.
pub(super) const FLOW_CONFIG_HEAP: f64 = 150.0;
/// A row of the links table while it is written (its columns, names and Parquet bytes), bytes.
pub(super) const TABLE_PER_LINK: f64 = 150.0;
/// The scenario's JSON per link direction (a dumbbell's host pair is four), bytes.
pub(super) const SCENARIO_PER_LINK: f64 = 40.0;
/// The scenario's JSON per `[[flows]]` entry, every default filled in, as
/// manifest.json holds it (measured: 879 bytes a Reno entry), bytes.
pub(super) const SCENARIO_PER_FLOW_ENTRY: f64 = 880.0;
/// JSON characters (bytes) of a drop-log row.
pub(super) const JSON_PER_DROP: f64 = 200.0;
/// Allocations every run makes whatever its size (names, small vectors), bytes.
pub(super) const BASE: f64 = 64.0 * 1024.0;
