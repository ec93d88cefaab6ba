//! Bounds every reader applies to untrusted values: names cut at 4 KiB (with
//! a note of their length), times within ±2^61 ns.

/// Longest name kept (bytes); longer names are cut with a note.
pub const MAX_NAME_BYTES: usize = 4096;
/// Timestamps outside `±MAX_TIME_NS` (about 73 years) are bad values: inside
/// it, the sum or difference of any two timestamps fits an `i64`.
pub const MAX_TIME_NS: i64 = 1 << 61;

/// `(start, end)` when both are within `±MAX_TIME_NS` and `end >= start`.
pub fn checked_interval(start: i64, end: i64) -> Option<(i64, i64)> {
    let ok = |t: i64| (-MAX_TIME_NS..=MAX_TIME_NS).contains(&t);
    (ok(start) && ok(end) && end >= start).then_some((start, end))
}

/// `name` cut to at most [`MAX_NAME_BYTES`] (on a character boundary) with
/// a note of its full length, so one hostile name cannot fill memory or a
/// plot.
pub fn cap_name(name: &[u8]) -> String {
    if name.len() <= MAX_NAME_BYTES {
        return String::from_utf8_lossy(name).into_owned();
    }
    let mut cut = MAX_NAME_BYTES;
    while cut > 0 && (name[cut] & 0xC0) == 0x80 {
        cut -= 1;
    }
    format!(
        "{}… (name cut at {cut} of {} bytes)",
        String::from_utf8_lossy(&name[..cut]),
        name.len()
    )
}

/// Opens `path` for reading when it is a regular file (symbolic links
/// followed); a FIFO, device or socket is refused before it is opened
/// (opening a FIFO waits for a writer; `/dev/zero` never ends), with an
/// `InvalidInput` error that says what it is.
pub fn open_regular(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    let special = |m: &std::fs::Metadata| {
        (!m.is_file()).then(|| {
            let what = if m.is_dir() {
                "a directory"
            } else {
                "a special file (a FIFO, device or socket)"
            };
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{what}, not a regular file: give the file itself"),
            )
        })
    };
    if let Some(e) = special(&std::fs::metadata(path)?) {
        return Err(e);
    }
    let file = std::fs::File::open(path)?;
    // The path may have been replaced between the two calls.
    if let Some(e) = special(&file.metadata()?) {
        return Err(e);
    }
    Ok(file)
}
