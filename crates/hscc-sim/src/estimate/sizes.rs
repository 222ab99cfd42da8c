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
/// A JSON file's text in memory at the end of a run, over its size (a ratio): the
/// rows as columns, the compact and the indented text, Python's copy, and the
/// objects Python reads back (measured: 110 MB for 16 MB of summary.json).
pub(super) const JSON_IN_MEMORY: f64 = 7.0;
/// A row of the links table while it is written (its columns, names and Parquet bytes), bytes.
pub(super) const TABLE_PER_LINK: f64 = 150.0;
/// The scenario's JSON per link direction (a dumbbell's host pair is four), bytes.
pub(super) const SCENARIO_PER_LINK: f64 = 40.0;
/// JSON characters (bytes) of a drop-log row.
pub(super) const JSON_PER_DROP: f64 = 200.0;
/// Allocations every run makes whatever its size (names, small vectors), bytes.
pub(super) const BASE: f64 = 64.0 * 1024.0;
