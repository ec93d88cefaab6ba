//! The one door every input comes through: [`identify`] decides from a
//! file's content (never its name, except for NVIDIA's two binary report
//! containers, whose format is not documented) what it is — an ncu CSV of
//! either page, an `.ncu-rep`, an Nsight Systems SQLite export or
//! `.nsys-rep`, a PyTorch profiler trace, a report rooftrace wrote, a roofs
//! file, calibration results, a directory — and says what it found when
//! nothing fits ([`NotAnInput`]). [`identify_for`] adds the command's side:
//! a kind it does not read is [`WrongCommand`], naming the command that
//! does. Timelines are then read by the one [`TimelineReader`] registered
//! for their kind (`reader`: the nsys and the Kineto reader).

pub mod kind;
pub mod reader;
pub mod sniff;

pub use kind::{Found, InputKind, NcuShape, NotAnInput, ReportKind, WrongCommand};
pub use reader::{read_timeline, timeline_reader, ReadOptions, TimelineReader};

use crate::error::InputError;
use std::path::Path;

/// Bytes of the head the door looks at first.
const HEAD_BYTES: usize = 4096;

/// What `path` holds, from its content: see the module header for the
/// kinds. An SQLite database is opened (read-only) to tell an nsys export
/// by its tables; a JSON document is read as far as its `schema` key.
/// Errors: a path that cannot be read (its reason), or [`NotAnInput`].
pub fn identify(path: &Path) -> Result<InputKind, InputError> {
    let shown = path.display();
    let meta = std::fs::metadata(path)
        .map_err(|e| InputError::new(format!("{shown}: cannot be read: {}", e.kind())))?;
    if meta.is_dir() {
        return Ok(InputKind::Directory);
    }
    if !meta.is_file() {
        return Err(InputError::new(format!(
            "{shown}: a special file (a FIFO, device or socket), not a regular file; give the file itself"
        )));
    }
    if meta.len() == 0 {
        return Err(InputError::new(format!("{shown}: an empty file (0 bytes)")));
    }
    let head = sniff::head(path, HEAD_BYTES);
    let not_an_input = |found| NotAnInput {
        path: shown.to_string(),
        found,
    };
    if sniff::is_sqlite(&head) {
        return if is_nsys_export(path)? {
            Ok(InputKind::NsysExport)
        } else {
            Err(not_an_input(Found::OtherSqlite).into())
        };
    }
    match crate::kineto::input::sniff(path) {
        crate::kineto::input::Content::Trace => return Ok(InputKind::PyTorchTrace),
        // gzip is what the profiler writes (`.json.gz`): one that is no
        // trace by what decodes of it and ends early is a trace cut short,
        // whose reader says where it ends and how to write a whole one.
        crate::kineto::input::Content::OtherJson if sniff::is_gzip(&head) => {
            return if sniff::gzip_decodes_whole(path) {
                Err(not_an_input(Found::Gzip).into())
            } else {
                Ok(InputKind::PyTorchTrace)
            };
        }
        crate::kineto::input::Content::OtherJson => {
            let schema = sniff::json_schema(path);
            return of_schema(schema.as_deref())
                .ok_or_else(|| not_an_input(Found::Json(schema)).into());
        }
        crate::kineto::input::Content::Other => {}
    }
    if let Some(shape) = sniff::ncu_shape(path) {
        return Ok(InputKind::NcuCsv(shape));
    }
    // NVIDIA's report containers: no documented magic, so their ending
    // (checked last: content of any other kind wins); the tool that
    // converts them (`ncu --import`, `nsys export`) reads the content.
    if crate::ncu::convert::is_report(path) {
        return Ok(InputKind::NcuReport);
    }
    if crate::nsys::convert::is_report(path) {
        return Ok(InputKind::NsysReport);
    }
    Err(not_an_input(sniff::found_in(&head)).into())
}

/// The kind a rooftrace JSON's `schema` (`rooftrace.<key>/<version>`) names.
fn of_schema(schema: Option<&str>) -> Option<InputKind> {
    let schema = schema?;
    let key = schema.strip_prefix("rooftrace.")?.split('/').next()?;
    match key {
        "roofs" => Some(InputKind::Roofs),
        "calib" => Some(InputKind::CalibrateResults),
        _ => ReportKind::from_key(key).map(|k| InputKind::Report(k, schema.to_string())),
    }
}

/// True when the SQLite database at `path` has Nsight Systems tables
/// (`nsys::Schema::is_nsys`), opened read-only as the reader opens it.
fn is_nsys_export(path: &Path) -> Result<bool, InputError> {
    let conn = crate::nsys::guard::open(path, crate::nsys::guard::Deadline::for_file(path))?;
    Ok(crate::nsys::Schema::probe(&conn, path)?.is_nsys())
}

/// What a command reads, for [`identify_for`].
#[derive(Debug, Clone, Copy)]
pub struct Wants {
    /// The command or flag, as typed (`` `rooftrace ncu` ``).
    pub command: &'static str,
    /// What it reads, in words.
    pub what: &'static str,
    /// The kinds it takes.
    pub takes: fn(&InputKind) -> bool,
}

/// `rooftrace ncu`: ncu CSVs and reports, and PyTorch traces with CUPTI
/// counter ranges.
pub const NCU: Wants = Wants {
    command: "`rooftrace ncu`",
    what: "ncu CSVs (`ncu --csv --page raw ... > report.csv`), .ncu-rep reports, and PyTorch profiler traces with CUPTI counter ranges",
    takes: |k| matches!(k, InputKind::NcuCsv(_) | InputKind::NcuReport | InputKind::PyTorchTrace),
};

/// `rooftrace gaps`, `budget`, `comm`: timelines.
pub const TIMELINE: Wants = Wants {
    command: "`rooftrace gaps`",
    what: "Nsight Systems exports (`nsys export --type=sqlite`), .nsys-rep reports and PyTorch profiler traces (.json, .json.gz)",
    takes: InputKind::is_timeline,
};

/// `rooftrace diff`: two ncu inputs, two timelines, or two JSON reports of
/// `ncu` or `gaps`.
pub const DIFF: Wants = Wants {
    command: "`rooftrace diff`",
    what: "two ncu CSVs or reports, two timelines (nsys exports, .nsys-rep, PyTorch traces), or two `rooftrace ncu`/`gaps --format json` reports",
    takes: |k| {
        k.is_timeline()
            || matches!(
                k,
                InputKind::NcuCsv(_)
                    | InputKind::NcuReport
                    | InputKind::Report(ReportKind::Ncu | ReportKind::Gaps, _)
            )
    },
};

/// `--roofs FILE`, `--project-to FILE`, `calibrate --datasheet FILE`: a
/// roofs file.
pub const ROOFS: Wants = Wants {
    command: "a roofs flag (`--roofs`, `--project-to`, `--datasheet`)",
    what: "a roofs file (`rooftrace.roofs/1` JSON: `rooftrace calibrate -o roofs.json`, or written by hand)",
    takes: |k| *k == InputKind::Roofs,
};

/// `rooftrace calibrate --from FILE`: a harness run's results.
pub const CALIBRATE: Wants = Wants {
    command: "`rooftrace calibrate --from`",
    what: "the JSON lines of a harness run (`rooftrace calibrate --save-results FILE`)",
    takes: |k| *k == InputKind::CalibrateResults,
};

/// For the readers with their own detailed errors (roofs files,
/// calibration results): an error only when the door knows `path` as
/// another kind ([`WrongCommand`]); a file it does not know, or cannot
/// read, is left to the reader, which says what is wrong inside it.
pub fn refuse_other_kinds(path: &Path, wants: &Wants) -> Result<(), InputError> {
    match identify(path) {
        Ok(kind) if !(wants.takes)(&kind) && kind != InputKind::Directory => Err(WrongCommand {
            path: path.display().to_string(),
            read_by: kind.read_by(),
            kind,
            command: wants.command,
            wants: wants.what,
        }
        .into()),
        _ => Ok(()),
    }
}

/// [`identify`], then the command's side: a kind `wants` does not take is
/// [`WrongCommand`] (what the file is, who reads it, what this command
/// reads). `command` overrides `wants.command` in the words (`budget`
/// shares [`TIMELINE`]).
pub fn identify_for(
    path: &Path,
    wants: &Wants,
    command: Option<&'static str>,
) -> Result<InputKind, InputError> {
    let kind = identify(path)?;
    if (wants.takes)(&kind) {
        return Ok(kind);
    }
    Err(WrongCommand {
        path: path.display().to_string(),
        read_by: kind.read_by(),
        kind,
        command: command.unwrap_or(wants.command),
        wants: wants.what,
    }
    .into())
}
