//! Count and time of gaps, summed by what the analysis tells apart: per
//! class ([`ClassTotals`]), per host detail under the host-bound class
//! ([`DetailTotals`]) and per length class ([`ScaleTotals`]). Plain data,
//! serialised as objects keyed by the class, detail or scale key; read by
//! the gap report ([`super::model`]) and every renderer.

use super::class::N_CLASSES;
use super::evidence::{HostDetail, Scale, N_DETAILS};
use super::GapClass;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// Count and total duration of the gaps of one class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ClassTotal {
    /// Number of gaps.
    pub count: u64,
    /// Sum of their durations, ns.
    pub total_ns: i64,
}

/// Per-class totals, indexed in [`GapClass::ALL`] order; serialised as an
/// object keyed by [`GapClass::key`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClassTotals(pub [ClassTotal; N_CLASSES]);

impl ClassTotals {
    /// Adds one gap.
    pub fn add(&mut self, class: GapClass, duration_ns: i64) {
        let t = &mut self.0[class as usize];
        t.count += 1;
        t.total_ns += duration_ns;
    }

    /// The totals of one class.
    pub fn get(&self, class: GapClass) -> ClassTotal {
        self.0[class as usize]
    }

    /// Sum of all classes' durations, ns (equals the idle time it was built from).
    pub fn total_ns(&self) -> i64 {
        self.0.iter().map(|t| t.total_ns).sum()
    }

    /// The class with the most idle time (first in display order on ties).
    pub fn dominant(&self) -> Option<GapClass> {
        GapClass::ALL
            .into_iter()
            .filter(|c| self.get(*c).total_ns > 0)
            .max_by_key(|c| (self.get(*c).total_ns, std::cmp::Reverse(*c as usize)))
    }
}

impl Serialize for ClassTotals {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(N_CLASSES))?;
        for c in GapClass::ALL {
            m.serialize_entry(c.key(), &self.get(c))?;
        }
        m.end()
    }
}

/// Host-bound idle time per [`HostDetail`]; serialised as an object keyed
/// by [`HostDetail::key`]. Sums to the host-bound class total.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DetailTotals(pub [ClassTotal; N_DETAILS]);

impl DetailTotals {
    /// Adds one gap.
    pub fn add(&mut self, d: HostDetail, duration_ns: i64) {
        let t = &mut self.0[d as usize];
        t.count += 1;
        t.total_ns += duration_ns;
    }

    /// The totals of one detail.
    pub fn get(&self, d: HostDetail) -> ClassTotal {
        self.0[d as usize]
    }

    /// Adds another device's totals.
    pub fn merge(&mut self, o: &DetailTotals) {
        for (a, b) in self.0.iter_mut().zip(o.0.iter()) {
            a.count += b.count;
            a.total_ns += b.total_ns;
        }
    }

    /// The detail with the most time (first in display order on ties).
    pub fn dominant(&self) -> Option<HostDetail> {
        HostDetail::ALL
            .into_iter()
            .filter(|d| self.get(*d).total_ns > 0)
            .max_by_key(|d| (self.get(*d).total_ns, std::cmp::Reverse(*d as usize)))
    }
}

impl Serialize for DetailTotals {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(N_DETAILS))?;
        for d in HostDetail::ALL {
            m.serialize_entry(d.key(), &self.get(d))?;
        }
        m.end()
    }
}

/// Host-bound idle time by gap length ([`Scale`]); serialised as an object
/// keyed by [`Scale::key`]. Sums to the host-bound class total.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScaleTotals(pub [ClassTotal; 3]);

impl ScaleTotals {
    /// Adds one gap of `duration_ns`.
    pub fn add(&mut self, duration_ns: i64) {
        let t = &mut self.0[Scale::of(duration_ns) as usize];
        t.count += 1;
        t.total_ns += duration_ns;
    }

    /// The totals of one scale.
    pub fn get(&self, s: Scale) -> ClassTotal {
        self.0[s as usize]
    }

    /// Adds another device's totals.
    pub fn merge(&mut self, o: &ScaleTotals) {
        for (a, b) in self.0.iter_mut().zip(o.0.iter()) {
            a.count += b.count;
            a.total_ns += b.total_ns;
        }
    }

    /// The scale holding the most time (the shorter on ties).
    pub fn dominant(&self) -> Option<Scale> {
        Scale::ALL
            .into_iter()
            .filter(|s| self.get(*s).total_ns > 0)
            .max_by_key(|s| (self.get(*s).total_ns, std::cmp::Reverse(*s as usize)))
    }
}

impl Serialize for ScaleTotals {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        for sc in Scale::ALL {
            m.serialize_entry(sc.key(), &self.get(sc))?;
        }
        m.end()
    }
}
