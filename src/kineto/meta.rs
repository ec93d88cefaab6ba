//! The trace's metadata beside `traceEvents`: `deviceProperties`,
//! `distributedInfo`, `baseTimeNanoseconds`. Each fact is decoded on its
//! own: an odd value (`totalGlobalMem: -1`, a rank of 2^40, a name that is
//! a number) costs that fact, which stays unknown, and leaves a
//! [`MetaNote`] naming it; the trace is read all the same.

use super::event::{id, text, unsigned, Field};
use super::lex::Raw;
use serde_json::value::RawValue;
use std::collections::BTreeMap;

/// `distributedInfo`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DistributedInfo {
    /// This process's rank.
    pub rank: Option<u32>,
    /// Ranks in the job.
    pub world_size: Option<u32>,
    /// Communication backend (`nccl`, `gloo`).
    pub backend: Option<String>,
}

/// One `deviceProperties` entry.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeviceProps {
    /// Device index.
    pub id: Option<i64>,
    /// Marketing name (`NVIDIA A100-PG509-200`, `AMD Radeon Graphics`).
    pub name: Option<String>,
    /// Compute capability major.
    pub compute_major: Option<i64>,
    /// Compute capability minor.
    pub compute_minor: Option<i64>,
    /// Streaming multiprocessors (compute units on AMD).
    pub num_sms: Option<i64>,
    /// Device memory, bytes.
    pub total_global_mem: Option<u64>,
}

/// A metadata fact that was present but unusable, left unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct MetaNote {
    /// The top-level key (`deviceProperties`, `distributedInfo`,
    /// `baseTimeNanoseconds`).
    pub key: &'static str,
    /// The field (`totalGlobalMem`, `rank`; `""` for the whole value).
    pub field: &'static str,
}

/// What metadata was read, and the facts left unknown (counted per field).
#[derive(Debug, Clone, Default)]
pub struct Meta {
    /// `distributedInfo`, when present.
    pub distributed: Option<DistributedInfo>,
    /// `deviceProperties`.
    pub devices: Vec<DeviceProps>,
    /// `baseTimeNanoseconds`, when present and usable.
    pub base_time_ns: Option<u64>,
    /// Unusable facts, with how many times each was met.
    pub notes: BTreeMap<MetaNote, u64>,
}

/// Most `deviceProperties` entries kept (a node has at most 16 GPUs).
const MAX_DEVICES: usize = 64;

impl Meta {
    fn note(&mut self, key: &'static str, field: &'static str) {
        *self.notes.entry(MetaNote { key, field }).or_default() += 1;
    }

    /// `v` when usable; a note when present and unusable.
    fn keep<T>(&mut self, key: &'static str, field: &'static str, v: Field<T>) -> Option<T> {
        match v {
            Field::Value(v) => Some(v),
            Field::Absent => None,
            Field::Unusable => {
                self.note(key, field);
                None
            }
        }
    }

    /// The fields of an object value, `None` (and a note) when `raw` is not
    /// an object.
    fn fields<'a>(
        &mut self,
        key: &'static str,
        raw: Raw<'a>,
    ) -> Option<BTreeMap<String, &'a RawValue>> {
        match serde_json::from_str::<BTreeMap<String, &RawValue>>(raw.get()) {
            Ok(map) => Some(map),
            Err(_) => {
                if raw.get() != "null" {
                    self.note(key, "");
                }
                None
            }
        }
    }

    /// `baseTimeNanoseconds`.
    pub fn read_base_time(&mut self, raw: Raw<'_>) {
        self.base_time_ns = self.keep("baseTimeNanoseconds", "", unsigned(Some(raw)));
    }

    /// `distributedInfo`.
    pub fn read_distributed(&mut self, raw: Raw<'_>) {
        const KEY: &str = "distributedInfo";
        let Some(map) = self.fields(KEY, raw) else {
            return;
        };
        let get = |k: &str| map.get(k).copied().map(Raw::from);
        let small = |v: Field<i64>| match v {
            Field::Value(n) => u32::try_from(n).map_or(Field::Unusable, Field::Value),
            Field::Absent => Field::Absent,
            Field::Unusable => Field::Unusable,
        };
        let rank = self.keep(KEY, "rank", small(id(get("rank"))));
        let world_size = self.keep(KEY, "world_size", small(id(get("world_size"))));
        let backend = self
            .keep(KEY, "backend", text(get("backend")))
            .map(|s| crate::timeline::limits::cap_name(s.as_bytes()));
        self.distributed = Some(DistributedInfo {
            rank,
            world_size,
            backend,
        });
    }

    /// `deviceProperties`: an array of objects.
    pub fn read_devices(&mut self, raw: Raw<'_>) {
        const KEY: &str = "deviceProperties";
        let Ok(entries) = serde_json::from_str::<Vec<&RawValue>>(raw.get()) else {
            if raw.get() != "null" {
                self.note(KEY, "");
            }
            return;
        };
        self.devices.clear();
        for entry in entries.into_iter().take(MAX_DEVICES) {
            let Some(map) = self.fields(KEY, Raw::from(entry)) else {
                continue;
            };
            let get = |k: &str| map.get(k).copied().map(Raw::from);
            let device = DeviceProps {
                id: self.keep(KEY, "id", id(get("id"))),
                name: self
                    .keep(KEY, "name", text(get("name")))
                    .map(|s| crate::timeline::limits::cap_name(s.as_bytes())),
                compute_major: self.keep(KEY, "computeMajor", id(get("computeMajor"))),
                compute_minor: self.keep(KEY, "computeMinor", id(get("computeMinor"))),
                num_sms: self.keep(KEY, "numSms", id(get("numSms"))),
                total_global_mem: self.keep(KEY, "totalGlobalMem", unsigned(get("totalGlobalMem"))),
            };
            self.devices.push(device);
        }
    }
}
