//! `rooftrace ncu --list-gpus`: the built-in GPU table with its roofs and
//! clocks, as an aligned table, Markdown, CSV or JSON (every source).

use super::table::Table;
use crate::roofs::ComputePath;
use crate::units::si;

/// The built-in GPU table (`--list-gpus`): default roofs per GPU, measured
/// values marked `*`; JSON lists every roof with its origin and source.
pub fn render_gpu_list(format: super::Format) -> Vec<u8> {
    use crate::roofs::gpus;
    use crate::roofs::Origin;
    if format == super::Format::Json {
        let list: Vec<serde_json::Value> = gpus::all()
            .iter()
            .map(|g| {
                let roofs = g.default_roofs();
                serde_json::json!({
                    "key": g.key,
                    "name": g.name,
                    "compute_capability": g.compute_capability,
                    "sm_count": g.sm_count,
                    "l2_bytes": g.l2_bytes,
                    "memory_clock_mhz": g.memory_clock_mhz,
                    "bus_width_bits": g.bus_width_bits,
                    "boost_clock_mhz": g.facts.boost_clock_mhz,
                    "fact_sources": {
                        "sm_count": g.facts.sm_count,
                        "l2_bytes": g.facts.l2,
                        "memory": g.facts.memory,
                        "boost_clock": g.facts.boost_clock,
                    },
                    // Why `clocks.sm_clock_hz` is absent, when it is.
                    "no_sm_clock": (!g.facts.no_sm_clock.is_empty()).then_some(g.facts.no_sm_clock),
                    "clocks": roofs.clocks,
                    "roofs": roofs,
                })
            })
            .collect();
        let mut v = serde_json::to_vec_pretty(&list).expect("serializes");
        v.push(b'\n');
        return v;
    }
    let mut header = vec!["key", "name", "CC", "DRAM"];
    header.extend(ComputePath::ALL.iter().map(|p| p.label()));
    let mut t = Table::new(&header, &[0, 1]);
    for g in gpus::all() {
        let r = g.default_roofs();
        let mark = |o: Origin| if o == Origin::Measured { "*" } else { "" };
        let mut row = vec![
            g.key.to_string(),
            g.name.to_string(),
            g.compute_capability.to_string(),
            r.dram().map_or("-".into(), |m| {
                format!("{}{}", si(m.bytes_per_s, "B/s"), mark(m.origin))
            }),
        ];
        row.extend(ComputePath::ALL.iter().map(|p| {
            r.compute.get(p).map_or("-".into(), |c| {
                format!("{}{}", si(c.flop_per_s, "FLOP/s"), mark(c.origin))
            })
        }));
        t.push(row);
    }
    let note = "* measured (see `--list-gpus --format json` for every source); others: NVIDIA datasheets, dense.\nFP16 cores: datasheet packed peak / 2, to match ncu's per-instruction FLOP counting (docs/ncu.md).\n";
    match format {
        super::Format::Markdown => format!("{}\n{note}", t.to_markdown()).into_bytes(),
        super::Format::Csv => {
            let mut w = csv::Writer::from_writer(Vec::new());
            w.write_record(&t.header).expect("write to Vec");
            for row in &t.rows {
                w.write_record(row).expect("write to Vec");
            }
            w.into_inner().expect("flush to Vec")
        }
        _ => format!("{}\n{note}", t.to_text()).into_bytes(),
    }
}
